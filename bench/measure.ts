import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { LoadConfig, LoadResult, TimingResult } from './load.ts'
import { REPO_ROOT, pinned } from './servers.ts'

let runs = 0

/**
 * Runs the load generator as a process of its own (pinned to `cpu`) with `config`, and returns
 * the JSON line it prints. Killed if it overruns its time by 60 s.
 */
export async function runGenerator<T extends LoadResult | TimingResult>(config: LoadConfig, options: { cpu: number | undefined; dir: string }): Promise<T> {
  const file = join(options.dir, `load-${++runs}.json`)
  writeFileSync(file, JSON.stringify(config))
  const [command, args] = pinned(options.cpu, [process.execPath, '--import', 'tsx', 'bench/load.ts', file])
  const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const limitMs = (config.warmupSeconds + config.durationSeconds + 60) * 1000
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs)
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  clearTimeout(timer)
  const line = stdout.trim().split('\n').at(-1) ?? ''
  if (code !== 0 || !line.startsWith('{')) throw new Error(`the load generator failed (exit ${code}): ${stderr.slice(-2000)}${stdout.slice(-500)}`)
  return JSON.parse(line) as T
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** One shape: `repeat` pairs of (ceiling, Latchkey) measurements with the same requests; medians. */
export interface ShapeMeasurement {
  runs: Array<{ ceiling: LoadResult; latchkey: LoadResult }>
  rps: number
  /** Median of the per-pair ratios Latchkey req/s ÷ ceiling req/s. */
  ratio: number
  /**
   * Median of the per-pair ratios ceiling CPU µs/request ÷ Latchkey's: what `ratio` would be with
   * both cores to themselves. Less disturbed than req/s by other work on a busy machine.
   */
  cpuRatio: number
  p50Ms: number
  p99Ms: number
  serverCpuUsPerRequest: number
  serverSystemUsPerRequest: number
  ceiling: {
    rps: number
    p50Ms: number
    p99Ms: number
    serverCpuUsPerRequest: number
    serverSystemUsPerRequest: number
    serverCpuPercent: number
    clientCpuPercent: number
  }
  /** Medians over Latchkey's runs, in % of a core: the server's (near 100: saturated) and the generator's. */
  serverCpuPercent: number
  clientCpuPercent: number
  errors: number
  firstError?: string
}

export function summarize(runs: Array<{ ceiling: LoadResult; latchkey: LoadResult }>): ShapeMeasurement {
  const of = (side: 'ceiling' | 'latchkey', key: keyof LoadResult) => median(runs.map((run) => Number(run[side][key] ?? NaN)))
  const errors = runs.reduce((sum, run) => sum + run.latchkey.errors + run.ceiling.errors, 0)
  const firstError = runs.map((run) => run.latchkey.firstError ?? run.ceiling.firstError).find(Boolean)
  return {
    runs,
    rps: of('latchkey', 'rps'),
    ratio: median(runs.map((run) => run.latchkey.rps / run.ceiling.rps)),
    cpuRatio: median(runs.map((run) => (run.ceiling.serverCpuUsPerRequest ?? NaN) / (run.latchkey.serverCpuUsPerRequest ?? NaN))),
    p50Ms: of('latchkey', 'p50Ms'),
    p99Ms: of('latchkey', 'p99Ms'),
    serverCpuUsPerRequest: of('latchkey', 'serverCpuUsPerRequest'),
    serverSystemUsPerRequest: of('latchkey', 'serverSystemUsPerRequest'),
    ceiling: {
      rps: of('ceiling', 'rps'),
      p50Ms: of('ceiling', 'p50Ms'),
      p99Ms: of('ceiling', 'p99Ms'),
      serverCpuUsPerRequest: of('ceiling', 'serverCpuUsPerRequest'),
      serverSystemUsPerRequest: of('ceiling', 'serverSystemUsPerRequest'),
      serverCpuPercent: of('ceiling', 'serverCpuPercent'),
      clientCpuPercent: of('ceiling', 'clientCpuPercent'),
    },
    serverCpuPercent: of('latchkey', 'serverCpuPercent'),
    clientCpuPercent: of('latchkey', 'clientCpuPercent'),
    errors,
    ...(firstError ? { firstError } : {}),
  }
}
