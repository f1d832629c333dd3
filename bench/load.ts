// The load generator, a process of its own: `node --import tsx bench/load.ts <config.json>`.
// It prints one JSON line (a LoadResult or a TimingResult) and exits 0; the orchestrator decides.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Connection, type Answer } from './http-client.ts'
import { buildRequest, requestSession, type BenchCredentials, type RequestKind, type RequestSession } from './shapes.ts'

export interface LoadConfig {
  mode: 'load' | 'timing'
  host: string
  port: number
  kind: RequestKind
  /** Each request picks one at random (one, except for shape 5). */
  credentials: BenchCredentials[]
  connections: number
  warmupSeconds: number
  durationSeconds: number
  /** The server whose CPU time (/proc/<pid>/stat) is read at the start and end of the window. */
  serverPid?: number
  clockTicksPerSecond?: number
  /** Timing mode: pairs of requests measured after as many warm-up pairs. */
  timingSamples?: number
}

export interface LoadResult {
  requests: number
  seconds: number
  rps: number
  p50Ms: number
  p99Ms: number
  /** Non-2xx answers and connection failures, warm-up included: must be 0. */
  errors: number
  firstError?: string
  serverCpuUsPerRequest?: number
  /** The part of it spent in the kernel (socket reads and writes, file locks, log writes). */
  serverSystemUsPerRequest?: number
  /** Server CPU time over the window, in % of one core. */
  serverCpuPercent?: number
  /** This process's CPU time over the window, in % of one core (near 100: the client limits). */
  clientCpuPercent: number
  /** The refresh grant (shape 7.2): each connection's refresh token at the end, for the next run. */
  refreshTokens?: string[]
}

export interface TimingResult {
  unknownKeyMs: number
  wrongSignatureMs: number
  ratio: number
  samples: number
  /** The error codes of the two 401s (unknown key / wrong signature). */
  codes: string
  errors: number
  firstError?: string
}

/** utime and stime of a process (all its threads), in clock ticks. */
export function cpuTicks(pid: number): { user: number; system: number } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  return { user: Number(fields[11]), system: Number(fields[12]) }
}

export function percentile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

const describeAnswer = (error: Error | undefined, answer: Answer | undefined) =>
  error ? error.message : `HTTP ${answer!.status}: ${answer!.body.slice(0, 300)}`

export function runLoad(config: LoadConfig): Promise<LoadResult> {
  const creds = config.credentials
  const pick = () => (creds.length === 1 ? creds[0]! : creds[Math.floor(Math.random() * creds.length)]!)
  const latencies: number[] = []
  let errors = 0
  let firstError: string | undefined
  let phase: 'warmup' | 'measure' | 'stop' = 'warmup'
  let active = config.connections
  const noTicks = { user: 0, system: 0 }
  let window = { t0: 0, t1: 0, ticks0: noTicks, ticks1: noTicks, cpu0: process.cpuUsage(), cpuUs: 0 }
  const ticks = () => (config.serverPid ? cpuTicks(config.serverPid) : noTicks)

  let refreshTokensAtEnd: () => string[] | undefined = () => undefined
  return new Promise((resolve) => {
    const finish = () => {
      const sorted = Float64Array.from(latencies).sort()
      const seconds = (window.t1 - window.t0) / 1000
      const usPerTick = 1e6 / (config.clockTicksPerSecond ?? 100)
      const serverSystemUs = (window.ticks1.system - window.ticks0.system) * usPerTick
      const serverCpuUs = (window.ticks1.user - window.ticks0.user) * usPerTick + serverSystemUs
      resolve({
        requests: sorted.length,
        seconds,
        rps: sorted.length / seconds,
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
        errors,
        ...(firstError ? { firstError } : {}),
        ...(config.serverPid
          ? {
              serverCpuUsPerRequest: serverCpuUs / Math.max(1, sorted.length),
              serverSystemUsPerRequest: serverSystemUs / Math.max(1, sorted.length),
              serverCpuPercent: serverCpuUs / 1e4 / seconds,
            }
          : {}),
        clientCpuPercent: window.cpuUs / 1e4 / seconds,
        ...(refreshTokensAtEnd() ? { refreshTokens: refreshTokensAtEnd() } : {}),
      })
    }
    const next = (connection: Connection, session: RequestSession) => {
      if (phase === 'stop') {
        connection.close()
        if (--active === 0) finish()
        return
      }
      const request = session.request()
      const started = performance.now()
      connection.send(request, (error, answer) => {
        const ok = !error && answer!.status >= 200 && answer!.status < 300
        if (!ok) {
          errors++
          firstError ??= describeAnswer(error, answer)
        } else {
          session.answered?.(answer!)
          if (phase === 'measure') latencies.push(performance.now() - started)
        }
        next(connection, session)
      })
    }
    setTimeout(() => {
      window = { ...window, t0: performance.now(), ticks0: ticks(), cpu0: process.cpuUsage() }
      phase = 'measure'
      setTimeout(() => {
        phase = 'stop'
        window = { ...window, t1: performance.now(), ticks1: ticks(), cpuUs: cpuTotal(process.cpuUsage(window.cpu0)) }
      }, config.durationSeconds * 1000)
    }, config.warmupSeconds * 1000)
    const sessions = Array.from({ length: config.connections }, (_, i) => requestSession(config.kind, config, pick, i))
    refreshTokensAtEnd = () => (config.kind === 'refresh' ? sessions.map((session) => session.refreshToken!()) : undefined)
    sessions.forEach((session) => next(new Connection(config.host, config.port), session))
  })
}

const cpuTotal = (usage: NodeJS.CpuUsage) => usage.user + usage.system

/**
 * One connection, the two kinds of refused request alternated (so drift hits both alike), both
 * expected to be 401 (an unknown consumer key with a real access token answers code 89, a wrong
 * signature code 32); the medians of their latencies.
 */
export async function runTiming(config: LoadConfig): Promise<TimingResult> {
  const connection = new Connection(config.host, config.port)
  const samples = config.timingSamples ?? 2000
  const times = { unknownKey: [] as number[], wrongSignature: [] as number[] }
  const codes: Partial<Record<keyof typeof times, string>> = {}
  let errors = 0
  let firstError: string | undefined
  for (let i = 0; i < 2 * samples; i++) {
    for (const kind of i % 2 === 0 ? (['unknownKey', 'wrongSignature'] as const) : (['wrongSignature', 'unknownKey'] as const)) {
      const raw = buildRequest(kind, config, config.credentials[0]!)
      const started = performance.now()
      const answer = await connection.request(raw)
      const ms = performance.now() - started
      if (answer.status !== 401) {
        errors++
        firstError ??= `${kind}: expected 401, got HTTP ${answer.status}: ${answer.body.slice(0, 200)}`
      }
      codes[kind] ??= /"code":(\d+)/.exec(answer.body)?.[1] ?? '?'
      if (i >= samples) times[kind].push(ms)
    }
  }
  connection.close()
  const median = (values: number[]) => percentile(Float64Array.from(values).sort(), 0.5)
  const unknownKeyMs = median(times.unknownKey)
  const wrongSignatureMs = median(times.wrongSignature)
  const ratio = unknownKeyMs / wrongSignatureMs
  return { unknownKeyMs, wrongSignatureMs, ratio, samples, codes: `${codes.unknownKey}/${codes.wrongSignature}`, errors, ...(firstError ? { firstError } : {}) }
}

/**
 * Keeps this process's event loop turning (a pending immediate makes every poll return at once), so
 * it never sleeps waiting for an answer. A sleeping load generator on a virtual machine is woken by
 * the server's own socket write, whose system call then pays for that wake-up (an interrupt to the
 * other core): CPU time that a server answering remote clients never spends, and that a slower
 * server pays far more often than the bare ceiling, whose load generator is busy all the time.
 */
function keepPolling(): void {
  const turn = () => void setImmediate(turn)
  turn()
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadConfig
  keepPolling()
  const result = config.mode === 'timing' ? await runTiming(config) : await runLoad(config)
  process.stdout.write(`${JSON.stringify(result)}\n`)
  process.exit(0)
}
