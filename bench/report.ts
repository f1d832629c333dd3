import type { LoadResult, TimingResult } from './load.ts'
import { median, type ShapeMeasurement } from './measure.ts'
import { SHAPES, type Shape, type ShapeId } from './shapes.ts'

/** Where the timing rule of the three-legged issue wants the unknown-key / wrong-signature ratio. */
export const TIMING_RANGE = [0.9, 1.1] as const

export interface Verdict {
  target: string
  /** undefined when the target cannot be judged (shape 5 without shape 1). */
  met: boolean | undefined
  /** What missed, by how much. */
  misses: string[]
}

/** Judges a shape against the issue's targets. */
export function judge(id: ShapeId, m: ShapeMeasurement, all: ReadonlyMap<ShapeId, ShapeMeasurement>): Verdict {
  const shape: Shape = SHAPES[id]
  const parts: string[] = []
  const misses: string[] = []
  let met: boolean | undefined = true
  // The targets are CPU × ceiling: what ×ceiling would be with both cores to themselves.
  if (shape.minRatio !== undefined) {
    parts.push(`≥${shape.minRatio.toFixed(2)}`)
    if (m.cpuRatio < shape.minRatio) misses.push(`CPU×ceil ${m.cpuRatio.toFixed(3)} < ${shape.minRatio} (${pct(m.cpuRatio / shape.minRatio - 1)})`)
  }
  if (shape.relativeTo) {
    const base = all.get(shape.relativeTo.shape as ShapeId)
    parts.push(`≥${shape.relativeTo.fraction}×(${shape.relativeTo.shape})`)
    // "Cost must not grow": judged on req/s and on CPU per request, which noise disturbs less.
    const fraction = shape.relativeTo.fraction
    if (!base) met = undefined
    else {
      if (m.ratio < fraction * base.ratio) misses.push(`ratio ${m.ratio.toFixed(3)} < ${fraction} × ${base.ratio.toFixed(3)} (is ${(m.ratio / base.ratio).toFixed(2)}×)`)
      const cost = base.serverCpuUsPerRequest / m.serverCpuUsPerRequest
      if (cost < fraction) misses.push(`CPU per request ${m.serverCpuUsPerRequest.toFixed(0)} µs vs ${base.serverCpuUsPerRequest.toFixed(0)} µs for (${shape.relativeTo.shape}) (is ${cost.toFixed(2)}×)`)
    }
  }
  if (shape.maxP99Factor !== undefined) {
    const factor = m.p99Ms / m.ceiling.p99Ms
    parts.push(`p99≤${shape.maxP99Factor}×`)
    if (factor > shape.maxP99Factor) misses.push(`p99 ${factor.toFixed(1)}× the ceiling's > ${shape.maxP99Factor}×`)
  }
  if (misses.length > 0) met = false
  if (parts.length === 0) return { target: 'none', met: undefined, misses }
  return { target: parts.join(', '), met, misses }
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)}%`
const fixed = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : '—')

function row(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i === 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')
}

const HEADER = ['shape', 'what', 'req/s', '×ceiling', 'CPU×ceil', 'p50 ms', 'p99 ms', 'p99×ceil', 'CPU µs/req', 'target', 'met?']

/** The cells of the results table: the ceiling first, one line per shape, then the timing rule. */
/** The Redis commands one request of a PostgreSQL + Redis shape costs (bench/redis-commands.ts); the target is one. */
export type RedisCommands = Partial<Record<'6.1' | '6.2', number>>
export const REDIS_COMMANDS_TARGET = 1

function tableCells(results: ReadonlyMap<ShapeId, ShapeMeasurement>, timing: TimingResult | undefined, redis: RedisCommands = {}): string[][] {
  const lines: string[][] = []
  const all = [...results.values()]
  if (all.length > 0) {
    const med = (key: keyof LoadResult) => median(all.flatMap((m) => m.runs.map((run) => Number(run.ceiling[key]))))
    lines.push(['ceil', 'bare node:http (median of every run)', fixed(med('rps'), 0), '1.000', '1.000',
      fixed(med('p50Ms'), 2), fixed(med('p99Ms'), 2), '1.0', fixed(med('serverCpuUsPerRequest'), 0), '', ''])
  }
  for (const [id, m] of results) {
    const verdict = judge(id, m, results)
    lines.push([id, SHAPES[id].title, fixed(m.rps, 0), fixed(m.ratio, 3), fixed(m.cpuRatio, 3), fixed(m.p50Ms, 2), fixed(m.p99Ms, 2),
      fixed(m.p99Ms / m.ceiling.p99Ms, 1), fixed(m.serverCpuUsPerRequest, 0), verdict.target, verdict.met === undefined ? (verdict.target === 'none' ? '' : '?') : verdict.met ? 'yes' : 'NO'])
  }
  for (const [id, commands] of Object.entries(redis)) {
    lines.push([`redis ${id}`, `Redis commands per request of (${id})`, '', fixed(commands, 2), '', '', '', '', '', String(REDIS_COMMANDS_TARGET), commands <= REDIS_COMMANDS_TARGET + 0.05 ? 'yes' : 'NO'])
  }
  if (timing) {
    const ok = timing.ratio >= TIMING_RANGE[0] && timing.ratio <= TIMING_RANGE[1]
    lines.push(['timing', `unknown key ${fixed(timing.unknownKeyMs, 3)} ms / wrong signature ${fixed(timing.wrongSignatureMs, 3)} ms`,
      '', fixed(timing.ratio, 3), '', '', '', '', '', `${TIMING_RANGE[0]}–${TIMING_RANGE[1]}`, ok ? 'yes' : 'NO'])
  }
  return lines
}

/** The human table: one line per shape, the ceiling first, then the timing rule. */
export function table(
  results: ReadonlyMap<ShapeId, ShapeMeasurement>,
  timing: TimingResult | undefined,
  skipped: string[],
  redis: RedisCommands = {},
): string {
  const lines = tableCells(results, timing, redis)
  const widths = HEADER.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const out = [row(HEADER, widths), ...lines.map((l) => row(l, widths))]
  for (const reason of skipped) out.push(`skipped: ${reason}`)
  for (const [id, m] of results) for (const miss of judge(id, m, results).misses) out.push(`missed (${id}): ${miss}`)
  for (const [id, m] of results) {
    if (m.ceiling.serverCpuPercent < 85) {
      out.push(`note (${id}): the ceiling used only ${m.ceiling.serverCpuPercent.toFixed(0)}% of its core (a busy machine, or the generator's limit): trust CPU×ceil more than ×ceiling`)
    }
  }
  return out.join('\n')
}

/** Where `--write-docs` puts the table in docs/performance.md: between these two lines. */
export const DOCS_MARKERS = ['<!-- bench:begin (npm run bench -- --write-docs writes what follows) -->', '<!-- bench:end -->'] as const

/** The run's circumstances, as the docs table's caption gives them. */
export interface RunContext {
  /** The sources measured (the BENCH lines carry it; the docs caption, describing the product as it is, does not). */
  commit: string
  at: string
  /** The machine's cores (os.cpus()). */
  cores: number
  loadAverage: number
  /** The share of CPU time a hypervisor stole during the run, in percent (Linux only). */
  stealPercent?: number | undefined
  /** Measured although the machine was not quiet (--noisy). */
  noisy?: boolean
  server: string
  duration: number
  warmup: number
  repeat: number
  connections: number
  pinned: boolean
  /** Redis commands per request of the PostgreSQL + Redis shapes, where they were counted. */
  redisCommands?: RedisCommands | undefined
}

/** The results as a Markdown table with a caption naming where and how they were measured (no date: docs describe the current state). */
export function markdownTable(results: ReadonlyMap<ShapeId, ShapeMeasurement>, timing: TimingResult | undefined, context: RunContext): string {
  const caption =
    `Measured on a ${context.cores}-core machine (load average ${context.loadAverage.toFixed(2)} at the start` +
    `${context.stealPercent === undefined ? '' : `, ${context.stealPercent.toFixed(1)} % of CPU time stolen during the run`}), ` +
    `\`--server ${context.server}\`, ${context.repeat} pairs of ${context.warmup} + ${context.duration} s per shape, ${context.connections} connections, ` +
    `${context.pinned ? 'server and load generator each pinned to a core' : 'not pinned to cores'}.`
  const cells = tableCells(results, timing, context.redisCommands)
  const line = (c: string[]) => `| ${c.join(' | ')} |`
  return [caption, '', line(HEADER), line(HEADER.map((_, i) => (i === 1 ? '---' : '---:'))), ...cells.map(line)].join('\n')
}

/** `doc` with the text between DOCS_MARKERS replaced by `body`; throws when the markers are not there once each, in order. */
export function replaceDocsTable(doc: string, body: string): string {
  const [begin, end] = DOCS_MARKERS
  const start = doc.indexOf(begin)
  const stop = doc.indexOf(end)
  if (start < 0 || stop < start || doc.indexOf(begin, start + 1) >= 0 || doc.indexOf(end, stop + 1) >= 0) {
    throw new Error(`docs/performance.md must hold the lines ${begin} and ${end} once each, in that order`)
  }
  return `${doc.slice(0, start + begin.length)}\n\n${body}\n\n${doc.slice(stop)}`
}

/** One `BENCH {json}` line per shape (and the timing rule), to grep and compare across commits. */
export function benchLines(
  results: ReadonlyMap<ShapeId, ShapeMeasurement>,
  timing: TimingResult | undefined,
  context: Record<string, unknown>,
): string[] {
  const round = (x: number, digits = 3) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null)
  const lines = [...results].map(([id, m]) => {
    const verdict = judge(id, m, results)
    return {
      shape: id, title: SHAPES[id].title, rps: round(m.rps, 0), ratio: round(m.ratio), cpuRatio: round(m.cpuRatio), p50Ms: round(m.p50Ms), p99Ms: round(m.p99Ms),
      p99Factor: round(m.p99Ms / m.ceiling.p99Ms, 2), serverCpuUsPerRequest: round(m.serverCpuUsPerRequest, 1),
      serverSystemUsPerRequest: round(m.serverSystemUsPerRequest, 1),
      ceiling: {
        rps: round(m.ceiling.rps, 0), p50Ms: round(m.ceiling.p50Ms), p99Ms: round(m.ceiling.p99Ms), serverCpuUsPerRequest: round(m.ceiling.serverCpuUsPerRequest, 1),
        serverSystemUsPerRequest: round(m.ceiling.serverSystemUsPerRequest, 1),
        serverCpuPercent: round(m.ceiling.serverCpuPercent, 0), clientCpuPercent: round(m.ceiling.clientCpuPercent, 0),
      },
      serverCpuPercent: round(m.serverCpuPercent, 0), clientCpuPercent: round(m.clientCpuPercent, 0), runs: m.runs.length, target: verdict.target, met: verdict.met ?? null, ...context,
    }
  })
  const all: object[] = lines
  if (timing) {
    all.push({ shape: 'timing', unknownKeyMs: round(timing.unknownKeyMs), wrongSignatureMs: round(timing.wrongSignatureMs),
      ratio: round(timing.ratio), samples: timing.samples, codes: timing.codes, target: `${TIMING_RANGE[0]}-${TIMING_RANGE[1]}`,
      met: timing.ratio >= TIMING_RANGE[0] && timing.ratio <= TIMING_RANGE[1], ...context })
  }
  return all.map((line) => `BENCH ${JSON.stringify(line)}`)
}
