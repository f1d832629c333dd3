// `npm run soak -- --minutes N [--database postgres://… --redis redis://…]`: the production server
// under a mixed load at full speed for N minutes, one line a report interval (a minute by default),
// and a verdict: exit 1 on any non-2xx answer or on memory growth (see judge()). The last line is
// `SOAK {json}` with everything measured.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { REPO_ROOT, latchkeyCommand, serverEnv } from '../../bench/servers.ts'
import { openDomain, openSharedBackends, type Storage } from '../../bench/setup.ts'
import type { BenchCredentials } from '../../bench/shapes.ts'
import { createApp } from '../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { createUser } from '../../src/domain/registry/users.ts'
import { newKeyring, serializeKeyring } from '../../src/storage/sealing/keyring.ts'
import type { FlowAccount } from './flow.ts'
import type { LoadConfig, LoadReport } from './load.ts'

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    database: { type: 'string' },
    redis: { type: 'string' },
    connections: { type: 'string', default: '32' },
    'report-seconds': { type: 'string', default: '60' },
    'stats-seconds': { type: 'string', default: '10' },
    'timestamp-skew': { type: 'string' },
    'drain-seconds': { type: 'string', default: '0' },
    apps: { type: 'string', default: '4' },
  },
})

interface Stats {
  rssBytes: number
  heapUsedBytes: number
  eventLoopDelayP99Ms: number
  nonceEntries: number | null
}

interface Row {
  minute: number
  perSecond: Record<string, number>
  failures: Record<string, number>
  stats: Stats | undefined
}

const SHAPES = ['verify', 'bearer', 'oauth2/token', 'request_token', 'flow']
const MB = 1024 * 1024

async function main(): Promise<number> {
  const minutes = Number(args.minutes)
  if (args.database && !args.redis) throw new Error('--database (PostgreSQL) needs --redis too')
  const shared = args.database ? await openSharedBackends(args.database, args.redis!) : undefined
  if (typeof shared === 'string') throw new Error(shared)
  // The run's one folder (the SQLite files, the load generator's config), removed however it ends.
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-soak-'))
  const storage: Storage = shared ? shared.storage : { database: join(dir, 'soak.sqlite') }
  const masterKey = serializeKeyring(newKeyring())
  let server: ChildProcess | undefined
  try {
    const { credentials, flow } = await register(storage, masterKey, Number(args.apps))
    const started = await startServer(storage, masterKey)
    server = started.child
    const target = { host: '127.0.0.1', port: started.port }
    for (const creds of credentials) creds.bearerToken = await bearerToken(target, creds)
    console.log(`soak: ${minutes} min on ${shared ? 'PostgreSQL + Redis' : 'SQLite (nonces and limits in memory)'}, server pid ${server.pid}, ${args.connections} connections`)
    console.log(header())
    const rows = await drive(target, credentials, flow, minutes, started.latestStats, join(dir, 'load.json'))
    const drained = await drain(Number(args['drain-seconds']), started.latestStats)
    const verdict = judge(rows)
    const summary = { minutes, backend: shared ? 'postgres+redis' : 'sqlite', rows, drained, serverErrors: started.errorLines(), ...verdict }
    console.log(`soak: ${verdict.ok ? 'passed' : `FAILED: ${verdict.reasons.join('; ')}`}`)
    console.log(`SOAK ${JSON.stringify(summary)}`)
    return verdict.ok ? 0 : 1
  } finally {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM')
      await once(server, 'exit')
    }
    if (shared) await shared.remove()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Users, apps with their owners' tokens, and the flow's app and person. */
async function register(storage: Storage, masterKey: string, apps: number): Promise<{ credentials: BenchCredentials[]; flow: FlowAccount }> {
  const deps = await openDomain(storage, masterKey)
  try {
    const credentials: BenchCredentials[] = []
    for (let i = 0; i < apps; i++) {
      await createUser(deps, { screenName: `soak${i}`, password: `soak-password-${i}-${Date.now()}` })
      const app = await createApp(deps, { name: `Soak ${i}`, owner: `soak${i}` })
      const { token } = await issueOwnerToken(deps, app.id)
      credentials.push({ consumerKey: app.consumerKey, consumerSecret: app.consumerSecret, accessToken: token.token, accessTokenSecret: token.secret })
    }
    const password = `soak-flow-${Date.now()}`
    await createUser(deps, { screenName: 'soakflow', password })
    const callback = 'https://soak.example/callback'
    const app = await createApp(deps, { name: 'Soak flow', owner: 'soak0', callbackUrls: [callback] })
    return { credentials, flow: { consumerKey: app.consumerKey, consumerSecret: app.consumerSecret, callback, username: 'soakflow', password } }
  } finally {
    await deps.runtime.close()
  }
}

/** The production server behind what it takes for a TLS proxy; its log lines are read for the stats. */
async function startServer(storage: Storage, masterKey: string) {
  const serveArgs = ['--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1', '--database', storage.database]
  if (storage.redis) serveArgs.push('--redis', storage.redis.url, '--redis-key-prefix', storage.redis.keyPrefix)
  serveArgs.push('--rate-limit-multiplier', '1000000', '--stats-interval', args['stats-seconds']!)
  if (args['timestamp-skew']) serveArgs.push('--timestamp-skew', args['timestamp-skew'])
  const [file, ...rest] = latchkeyCommand('tsx', serveArgs)
  const child = spawn(file!, rest, { cwd: REPO_ROOT, env: serverEnv({ LATCHKEY_MASTER_KEY: masterKey }), stdio: ['ignore', 'pipe', 'pipe'] })
  let latest: Stats | undefined
  const errors: string[] = []
  let tail = ''
  let port: number | undefined
  const listening = new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${tail.slice(-1000)}`)))
    // Only lines with these words are parsed: the request lines (most of the output) are skipped.
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const text = tail + chunk
      const lines = text.split('\n')
      tail = lines.pop()!
      for (const line of lines) {
        if (line.includes('"process stats"')) latest = (JSON.parse(line) as { stats: Stats }).stats
        else if (/"level":[56]0/.test(line) && errors.length < 20) errors.push(line.slice(0, 500))
        else if (port === undefined && line.includes('"msg":"Latchkey is listening"')) resolve((port = Number(new URL((JSON.parse(line) as { url: string }).url).port)))
      }
    })
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (tail += chunk))
  })
  return { child, port: await listening, latestStats: () => latest, errorLines: () => errors }
}

async function bearerToken(target: { host: string; port: number }, creds: BenchCredentials): Promise<string> {
  const basic = Buffer.from(`${creds.consumerKey}:${creds.consumerSecret}`).toString('base64')
  const response = await fetch(`http://${target.host}:${target.port}/oauth2/token`, {
    method: 'POST',
    headers: { 'x-forwarded-proto': 'https', authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  })
  const body = (await response.json()) as { access_token?: string }
  if (!body.access_token) throw new Error(`oauth2/token answered ${response.status}: ${JSON.stringify(body)}`)
  return body.access_token
}

/** Runs the load process, its config written to `configFile`, and turns each of its reports into a row, printed as it comes. */
async function drive(
  target: { host: string; port: number },
  credentials: BenchCredentials[],
  flow: FlowAccount,
  minutes: number,
  stats: () => Stats | undefined,
  configFile: string,
): Promise<Row[]> {
  const reportSeconds = Number(args['report-seconds'])
  const config: LoadConfig = { ...target, credentials, flow, connections: Number(args.connections), durationSeconds: minutes * 60, reportSeconds }
  writeFileSync(configFile, JSON.stringify(config))
  const load = spawn(process.execPath, ['--import', 'tsx', 'scripts/soak/load.ts', configFile], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  const rows: Row[] = []
  let tail = ''
  load.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (tail + chunk).split('\n')
    tail = lines.pop()!
    for (const line of lines) {
      const report = JSON.parse(line) as LoadReport
      const perSecond = Object.fromEntries(SHAPES.map((shape) => [shape, (report.ok[shape] ?? 0) / report.seconds]))
      const row: Row = { minute: (rows.length + 1) * (reportSeconds / 60), perSecond, failures: report.failures, stats: stats() }
      rows.push(row)
      console.log(format(row))
      if (report.sample) console.log(`  first failure of the interval: ${report.sample}`)
    }
  })
  const [code] = (await once(load, 'exit')) as [number | null]
  if (code !== 0) throw new Error(`the load generator exited with ${code}`)
  return rows
}

/** After the load: waits, reading the stats, until the nonce store is empty or `seconds` have passed. */
async function drain(seconds: number, stats: () => Stats | undefined): Promise<Stats | undefined> {
  const deadline = Date.now() + seconds * 1000
  while (Date.now() < deadline && (stats()?.nonceEntries ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, 1000))
  return stats()
}

/**
 * Passed when no answer was other than 2xx and, for runs of 20 minutes or more, the server's RSS
 * grew by less than 5 % over the last 10 minutes: the median RSS of the last 10 minutes against the
 * median of the 10 before (medians, because the garbage collector moves RSS by ±10 % from one
 * minute to the next; a leak moves the median).
 */
function judge(rows: Row[]): { ok: boolean; reasons: string[]; rssGrowthLast10MinPercent?: number } {
  const reasons: string[] = []
  const failures = rows.reduce((sum, row) => sum + Object.values(row.failures).reduce((a, b) => a + b, 0), 0)
  if (failures > 0) reasons.push(`${failures} answers were not 2xx`)
  const perMinute = rows.length / Math.max(1, rows.at(-1)?.minute ?? 1)
  const tenMinutes = Math.round(10 * perMinute)
  let growth: number | undefined
  if ((rows.at(-1)?.minute ?? 0) >= 20) {
    const rss = rows.map((row) => row.stats?.rssBytes ?? NaN)
    const last = median(rss.slice(-tenMinutes))
    const before = median(rss.slice(-2 * tenMinutes, -tenMinutes))
    growth = ((last - before) / before) * 100
    if (!(growth < 5)) reasons.push(`RSS grew ${growth.toFixed(1)} % over the last 10 minutes`)
  }
  return { ok: reasons.length === 0, reasons, ...(growth === undefined ? {} : { rssGrowthLast10MinPercent: Math.round(growth * 10) / 10 }) }
}

function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b)
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]!
}

function header(): string {
  return `| min | verify/s | bearer/s | oauth2/token/s | request_token/s | flows/s | non-2xx | RSS MB | heap MB | ELD p99 ms | nonce entries |\n|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|`
}

function format(row: Row): string {
  const rate = (shape: string) => (row.perSecond[shape] ?? 0).toFixed(shape === 'flow' ? 2 : 0)
  const failures = Object.entries(row.failures).map(([what, n]) => `${what}: ${n}`).join(', ') || '0'
  const stats = row.stats
  const mb = (bytes: number | undefined) => (bytes === undefined ? '?' : (bytes / MB).toFixed(0))
  return `| ${Number(row.minute.toFixed(2))} | ${SHAPES.map(rate).join(' | ')} | ${failures} | ${mb(stats?.rssBytes)} | ${mb(stats?.heapUsedBytes)} | ${stats?.eventLoopDelayP99Ms ?? '?'} | ${stats?.nonceEntries ?? '-'} |`
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`soak: ${(error as Error).stack ?? String(error)}`)
    process.exit(2)
  },
)
