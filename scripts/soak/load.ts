// The soak's load generator, a process of its own: `node --import tsx scripts/soak/load.ts <config.json>`.
// Drives a mixed load at full speed on raw keep-alive connections, and one complete three-legged
// flow (request token, consent form, access token, a call with it) every second; prints one JSON
// line (a LoadReport) every reportSeconds and exits once durationSeconds have passed.
import { readFileSync } from 'node:fs'
import { Connection, type Answer } from '../../bench/http-client.ts'
import { buildRequest, type BenchCredentials, type RequestKind } from '../../bench/shapes.ts'
import { completeFlow, type FlowAccount } from './flow.ts'

export interface LoadConfig {
  host: string
  port: number
  /** Signed and bearer calls pick one at random. */
  credentials: BenchCredentials[]
  flow: FlowAccount
  connections: number
  durationSeconds: number
  reportSeconds: number
}

/** What happened since the previous report. */
export interface LoadReport {
  seconds: number
  /** Answers with 2xx by shape (the flow counts one per complete flow). */
  ok: Record<string, number>
  /** Everything else, by "shape status/code" (or "shape error: message"). */
  failures: Record<string, number>
  /** One sample failure body of the interval, for the log. */
  sample?: string
}

/** Shares of the mix: signed calls from several apps and tokens, bearer calls, oauth2/token, request_token. */
const MIX: Array<[RequestKind, number]> = [
  ['verify', 0.55],
  ['bearer', 0.2],
  ['token', 0.1],
  ['requestToken', 0.15],
]

function pickKind(): RequestKind {
  let r = Math.random()
  for (const [kind, share] of MIX) if ((r -= share) < 0) return kind
  return 'verify'
}

const SHAPE_NAMES: Record<string, string> = { verify: 'verify', bearer: 'bearer', token: 'oauth2/token', requestToken: 'request_token' }

function run(config: LoadConfig): Promise<void> {
  let ok: Record<string, number> = {}
  let failures: Record<string, number> = {}
  let sample: string | undefined
  let intervalStart = performance.now()
  let stopping = false
  const count = (shape: string, answer: Answer | undefined, error?: Error) => {
    if (answer && answer.status >= 200 && answer.status < 300) {
      ok[shape] = (ok[shape] ?? 0) + 1
      return
    }
    const what = answer ? `${shape} ${answer.status}/${/"code":(\d+)/.exec(answer.body)?.[1] ?? '-'}` : `${shape} ${error?.message ?? 'failed'}`
    failures[what] = (failures[what] ?? 0) + 1
    sample ??= answer ? `${what}: ${answer.body.slice(0, 200)}` : `${what}: ${(error as { detail?: string } | undefined)?.detail ?? ''}`
  }
  const report = () => {
    const now = performance.now()
    const line: LoadReport = { seconds: (now - intervalStart) / 1000, ok, failures, ...(sample ? { sample } : {}) }
    process.stdout.write(`${JSON.stringify(line)}\n`)
    ok = {}
    failures = {}
    sample = undefined
    intervalStart = now
  }

  const pick = () => config.credentials[Math.floor(Math.random() * config.credentials.length)]!
  let active = config.connections
  return new Promise((resolve) => {
    const next = (connection: Connection) => {
      if (stopping) {
        connection.close()
        if (--active === 0) resolve()
        return
      }
      const kind = pickKind()
      connection.send(buildRequest(kind, config, pick()), (error, answer) => {
        count(SHAPE_NAMES[kind]!, answer, error)
        next(connection)
      })
    }
    for (let i = 0; i < config.connections; i++) next(new Connection(config.host, config.port))

    // One flow at a time, one a second (the next one at once when a flow took longer): as one
    // person would, and the address's sign-in budget (5 attempts in flight) is never the limit.
    const flows = async () => {
      while (!stopping) {
        const started = performance.now()
        await completeFlow(config, config.flow).then(
          () => count('flow', { status: 200, headers: '', body: '' }),
          (error: Error) => count('flow', undefined, error),
        )
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (performance.now() - started))))
      }
    }
    void flows()
    // The reports and the end are one chain of timers: a separate end timer could fire a moment
    // after the last interval's report and print a near-empty extra report.
    const reportsDue = Math.ceil(config.durationSeconds / config.reportSeconds)
    let reported = 0
    const scheduleReport = () => {
      const seconds = Math.min(config.reportSeconds, config.durationSeconds - reported * config.reportSeconds)
      setTimeout(() => {
        report()
        if (++reported >= reportsDue) stopping = true
        else scheduleReport()
      }, seconds * 1000)
    }
    scheduleReport()
  })
}

const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadConfig
await run(config)
process.exit(0)
