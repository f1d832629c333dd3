// `npm run bench [-- --shapes 1,2 --duration 5 --warmup 1 --repeat 3 --connections 32 ...]`:
// Latchkey against a bare node:http ceiling, with the same load generator; docs/performance.md.
// `--write-docs` puts the table of a successful run into docs/performance.md.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { newKeyring, serializeKeyring } from '../src/storage/sealing/keyring.ts'
import type { LoadConfig, LoadResult, TimingResult } from './load.ts'
import { runGenerator, summarize, type ShapeMeasurement } from './measure.ts'
import { checkJsonLogs, precheck } from './prechecks.ts'
import { benchLines, markdownTable, replaceDocsTable, table, type RedisCommands, type RunContext } from './report.ts'
import { redisCommandsPerRequest } from './redis-commands.ts'
import { cpuTimes, notQuiet, stealPercent } from './quiet.ts'
import { seedLarge } from './seed.ts'
import { CPU, LATCHKEY_LISTENING, REPO_ROOT, buildSources, canPin, clockTicksPerSecond, latchkeyCommand, serverEnv, startCeiling, startServer, type Runtime, type ServerProcess } from './servers.ts'
import { openDomain, openSharedBackends, registerBench, type Storage } from './setup.ts'
import { SHAPES, type BenchCredentials, type ShapeId } from './shapes.ts'
import { measureStartUp, startUpLine, type StartUp } from './start-up.ts'

const { values: opts } = parseArgs({
  options: {
    shapes: { type: 'string', default: '0,1,2,3,4,5,6,7,8,start' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    repeat: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    tokens: { type: 'string', default: '1000000' },
    apps: { type: 'string', default: '100000' },
    spread: { type: 'string', default: '10000' },
    'timing-samples': { type: 'string', default: '2000' },
    'rate-limit-multiplier': { type: 'string', default: '1000000' },
    server: { type: 'string', default: 'tsx' },
    profile: { type: 'string' },
    'pg-url': { type: 'string', default: process.env.LATCHKEY_BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test' },
    'redis-url': { type: 'string', default: process.env.LATCHKEY_BENCH_REDIS_URL || 'redis://127.0.0.1:6379' },
    'no-pin': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'write-docs': { type: 'boolean', default: false },
    noisy: { type: 'boolean', default: false },
  },
})
const num = (name: keyof typeof opts, { zeroOk = false } = {}) => {
  const value = Number(opts[name])
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroOk)) throw new Error(`--${name} must be a positive number`)
  return value
}
const duration = num('duration')
const warmup = num('warmup')
if (duration + warmup > 15) throw new Error('--duration plus --warmup must stay within 15 s per measurement')
const repeat = num('repeat')
const connections = num('connections')
const runtime = opts.server as Runtime
if (runtime !== 'tsx' && runtime !== 'dist') throw new Error('--server must be tsx or dist')
const wanted = new Set(opts.shapes.split(',').map((s) => s.trim()))
const pin = !opts['no-pin'] && canPin()
const cpu = (role: keyof typeof CPU) => (pin ? CPU[role] : undefined)
const clockTicks = clockTicksPerSecond()
const log = (line: string) => process.stderr.write(`${line}\n`)

// This process stays off the server's core too (it is idle while the generator runs).
if (pin) spawnSync('taskset', ['-pc', String(CPU.client), String(process.pid)], { stdio: 'ignore' })
const startLoad = loadavg()[0]!
const startCpu = cpuTimes()
// Figures from a busy machine decide nothing: refused unless asked for (--noisy), and never written to the docs.
const busy = notQuiet(startLoad)
if (busy && (!opts.noisy || opts['write-docs'])) {
  process.stderr.write(`bench: ${busy}${opts['write-docs'] ? '' : '; --noisy measures anyway, the figures marked as noisy'}\n`)
  process.exit(2)
}
// The sources measured: the commit, and whether src/ differs from it (taken now, before anything starts).
const git = (...args: string[]) => spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).stdout?.trim() ?? ''
const commit = `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'src') ? '+dirty' : ''}`
const dir = mkdtempSync(join(tmpdir(), 'latchkey-bench-'))
const results = new Map<ShapeId, ShapeMeasurement>()
const skipped: string[] = []
let timing: TimingResult | undefined
let startUp: StartUp | undefined
let ceiling: ServerProcess | undefined

function loadConfig(server: ServerProcess, kind: LoadConfig['kind'], credentials: BenchCredentials[]): LoadConfig {
  const { host, port, pid } = server
  return { mode: 'load', host, port, kind, credentials, connections, warmupSeconds: warmup, durationSeconds: duration, serverPid: pid, clockTicksPerSecond: clockTicks }
}

/** A ceiling run below this share of its core was disturbed by other work: the pair is measured again. */
const MIN_CEILING_CPU_PERCENT = 85
const ATTEMPTS = 3

/** `repeat` pairs of measurements, the ceiling right before Latchkey each time, with the same requests. */
async function measureShape(id: ShapeId, server: ServerProcess, credentials: BenchCredentials[]): Promise<void> {
  // A refresh chain goes on from where the last run left it: its earlier tokens are spent.
  const carryOn = (result: LoadResult) => {
    const oauth2 = credentials[0]?.oauth2
    if (result.refreshTokens && oauth2) oauth2.refreshTokens = result.refreshTokens
    return result
  }
  const measurePair = async () => ({
    ceiling: await runGenerator<LoadResult>(loadConfig(ceiling!, SHAPES[id].kind, credentials), { cpu: cpu('client'), dir }),
    latchkey: carryOn(await runGenerator<LoadResult>(loadConfig(server, SHAPES[id].kind, credentials), { cpu: cpu('client'), dir })),
  })
  const disturbed = (pair: { ceiling: LoadResult }) => (pair.ceiling.serverCpuPercent ?? 100) < MIN_CEILING_CPU_PERCENT
  const runs: Array<{ ceiling: LoadResult; latchkey: LoadResult }> = []
  for (let r = 1; r <= repeat; r++) {
    let pair = await measurePair()
    for (let attempt = 2; attempt <= ATTEMPTS && disturbed(pair) && pair.ceiling.errors + pair.latchkey.errors === 0; attempt++) {
      log(`  (${id}) run ${r}/${repeat}: the ceiling used ${pair.ceiling.serverCpuPercent?.toFixed(0)}% of its core (other work?): measuring the pair again`)
      pair = await measurePair()
    }
    const { ceiling: ceilingRun, latchkey: latchkeyRun } = pair
    runs.push(pair)
    log(`  (${id}) run ${r}/${repeat}: ${latchkeyRun.rps.toFixed(0)} req/s vs ceiling ${ceilingRun.rps.toFixed(0)} ` +
      `(${(latchkeyRun.rps / ceilingRun.rps).toFixed(3)}), p99 ${latchkeyRun.p99Ms.toFixed(2)} ms vs ${ceilingRun.p99Ms.toFixed(2)} ms, ` +
      `CPU server/client ${latchkeyRun.serverCpuPercent?.toFixed(0)}%/${latchkeyRun.clientCpuPercent.toFixed(0)}% ` +
      `(ceiling ${ceilingRun.serverCpuPercent?.toFixed(0)}%/${ceilingRun.clientCpuPercent.toFixed(0)}%)`)
    for (const [side, run] of [['Latchkey', latchkeyRun], ['ceiling', ceilingRun]] as const) {
      if (run.errors > 0) throw new Error(`shape ${id}: ${run.errors} requests to the ${side} failed (non-2xx or connection errors); first: ${run.firstError}`)
    }
  }
  results.set(id, summarize(runs))
}

/**
 * Registers the bench's user, app and owner token in-process, runs `beforeStart`, starts
 * `latchkey serve` (production mode behind a trusted proxy on loopback), runs the pre-checks,
 * then `body`; stops the server whatever happens.
 */
async function withLatchkey(
  label: string,
  storage: Storage,
  body: (server: ServerProcess, creds: BenchCredentials) => Promise<void>,
  beforeStart?: (masterKey: string) => Promise<void>,
  options: { userGrants?: number } = {},
): Promise<void> {
  const masterKey = serializeKeyring(newKeyring())
  const deps = await openDomain(storage, masterKey)
  const registered = await registerBench(deps, options).finally(() => deps.runtime.close())
  await beforeStart?.(masterKey)
  const serveArgs = [
    ...['--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1', '--database', storage.database, '--log-level', 'info'],
    ...['--rate-limit-multiplier', String(opts['rate-limit-multiplier'])],
    ...(storage.redis ? ['--redis', storage.redis.url, '--redis-key-prefix', storage.redis.keyPrefix] : []),
  ]
  const started = performance.now()
  const server = await startServer({
    command: latchkeyCommand(runtime, serveArgs, opts.profile && resolve(opts.profile)),
    env: serverEnv({ LATCHKEY_MASTER_KEY: masterKey }),
    cpu: cpu('server'),
    logFile: join(dir, `latchkey-${label}.log`),
    pattern: LATCHKEY_LISTENING,
  })
  log(`latchkey serve (${label}, ${runtime}) pid ${server.pid} listening on ${server.url} after ${((performance.now() - started) / 1000).toFixed(1)} s`)
  try {
    const creds = await precheck(server, registered)
    checkJsonLogs(readFileSync(server.logFile, 'utf8'))
    log('  pre-checks passed: valid 200, tampered 401/32, replayed nonce 401/32, JSON logs, every shape 200')
    await body(server, creds)
  } finally {
    const code = await server.stop()
    if (code !== 0) log(`  latchkey serve (${label}) exited with ${code}`)
  }
}

let failed = false
const redisCommands: RedisCommands = {}
try {
  if (runtime === 'dist') buildSources()
  if (busy) log(`note (--noisy): ${busy}; these figures are noisy`)
  ceiling = await startCeiling(cpu('server'), join(dir, 'ceiling.log'))
  log(`ceiling pid ${ceiling.pid} on ${ceiling.url}; ${pin ? `server on CPU ${CPU.server}, load generator on CPU ${CPU.client}` : 'not pinned'}`)

  const small = (['0', '1', '2', '3', '4', '7.1', '7.2', '8'] as const).filter((id) => wanted.has(id) || wanted.has(id.split('.')[0]!))
  // Shape 7.2 needs a refresh chain per connection; one grant more answers /2/users/me.
  const userGrants = small.some((id) => id.startsWith('7')) ? connections + 1 : 0
  if (small.length > 0) {
    await withLatchkey('sqlite', { database: join(dir, 'bench.sqlite') }, async (server, creds) => {
      const timingSamples = num('timing-samples', { zeroOk: true })
      if (timingSamples > 0) {
        timing = await runGenerator<TimingResult>(
          { ...loadConfig(server, 'verify', [creds]), mode: 'timing', connections: 1, timingSamples, durationSeconds: 60 },
          { cpu: cpu('client'), dir },
        )
        if (timing.errors > 0) throw new Error(`timing check: ${timing.errors} unexpected answers; first: ${timing.firstError}`)
        log(`  timing: unknown key ${timing.unknownKeyMs.toFixed(3)} ms, wrong signature ${timing.wrongSignatureMs.toFixed(3)} ms`)
      }
      for (const id of small) await measureShape(id, server, [creds])
    }, undefined, { userGrants })
  }

  if (wanted.has('5')) {
    let sample: BenchCredentials[] = []
    await withLatchkey('seeded', { database: join(dir, 'seeded.sqlite') }, (server) => measureShape('5', server, sample), async (masterKey) => {
      const seeded = await seedLarge(join(dir, 'seeded.sqlite'), masterKey, { apps: num('apps'), tokens: num('tokens'), sample: num('spread') })
      sample = seeded.sample
      log(`seeded ${seeded.tokens} access tokens, ${seeded.apps} apps, ${seeded.users} users in ${seeded.seconds.toFixed(1)} s; the load spreads over ${sample.length} of them`)
    })
  }

  if (wanted.has('6')) {
    const backends = await openSharedBackends(opts['pg-url'], opts['redis-url'])
    if (typeof backends === 'string') {
      skipped.push(`(6) PostgreSQL + Redis: ${backends}`)
      log(`skipping (6): ${backends}`)
    } else {
      try {
        await withLatchkey('postgres', backends.storage, async (server, creds) => {
          await measureShape('6.1', server, [creds])
          await measureShape('6.2', server, [creds])
          for (const [id, kind] of [['6.1', 'verify'], ['6.2', 'bearer']] as const) {
            redisCommands[id] = await redisCommandsPerRequest(opts['redis-url'], backends.storage.redis!.keyPrefix, server, creds, kind)
            log(`  (${id}) ${redisCommands[id]!.toFixed(2)} Redis commands per request (MONITOR over 500 requests)`)
          }
        })
      } finally {
        await backends.remove()
      }
    }
  }
  if (wanted.has('start')) {
    // What a test imports is the compiled package (dist/), built as npm run build builds it.
    const built = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT, encoding: 'utf8' })
    if (built.status !== 0) throw new Error(`building dist/ failed: ${built.stdout}${built.stderr}`)
    startUp = measureStartUp(repeat + 2)
    log(`  ${startUpLine(startUp)}`)
  }
} catch (error) {
  failed = true
  log(`\nBENCH RUN FAILED: ${(error as Error).message}`)
} finally {
  await ceiling?.stop()
  if (opts.keep) log(`kept ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
}

const steal = stealPercent(startCpu, cpuTimes())
const context: RunContext = {
  commit,
  server: runtime,
  loadAverage: Number(startLoad.toFixed(2)),
  stealPercent: steal === undefined ? undefined : Number(steal.toFixed(1)),
  noisy: busy !== undefined,
  duration,
  warmup,
  repeat,
  connections,
  pinned: pin,
  redisCommands,
  at: new Date().toISOString(),
  // os.cpus(), not availableParallelism(): this process is pinned to one core by now, and the latter counts its affinity.
  cores: cpus().length,
}
process.stdout.write(`\n${table(results, timing, skipped, redisCommands)}\n\n`)
if (startUp) process.stdout.write(`${startUpLine(startUp)}\n\n`)
for (const line of benchLines(results, timing, { ...context })) process.stdout.write(`${line}\n`)
if (opts['write-docs']) {
  if (failed || results.size === 0) log('--write-docs: nothing written (the run failed or measured nothing)')
  else {
    const docsPath = join(REPO_ROOT, 'docs', 'performance.md')
    writeFileSync(docsPath, replaceDocsTable(readFileSync(docsPath, 'utf8'), markdownTable(results, timing, context)))
    log(`--write-docs: the table of ${docsPath} is this run's`)
  }
}
if (opts.profile) log(`CPU profiles of the Latchkey processes: ${opts.profile} (npx tsx bench/profile-summary.ts <file>)`)
process.exit(failed ? 1 : 0)
