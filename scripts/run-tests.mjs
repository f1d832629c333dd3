// Runs the test tiers of scripts/test-tiers.mjs with node:test, each test file bundled by esbuild
// and run by plain Node (scripts/test-bundle.mjs), and prints what each cost and the totals at the end.
//
//   node scripts/run-tests.mjs                     every tier: what npm test runs
//   node scripts/run-tests.mjs unit http           some tiers (npm run test:unit, …)
//   node scripts/run-tests.mjs full                every file on both backends (npm run test:full)
//   node scripts/run-tests.mjs long                the soak at length, the fuzz at full count (CI)
//   node scripts/run-tests.mjs test/storage        the tiers' files under a path, on the backends
//                                                  the tiers give them
//   --backend=sqlite|postgres                      only the groups of one backend
//   --concurrency=N                                files at once in a parallel group (default 3, or
//                                                  LATCHKEY_TEST_CONCURRENCY)
//
// PostgreSQL + Redis groups set LATCHKEY_TEST_DATABASE_URL and LATCHKEY_TEST_REDIS_URL (to the values
// in the environment, else the machine's local services); every test that opens storage then gets a
// schema and a key prefix of its own. When either service does not answer, those groups are skipped
// with a one-line reason, or, with CI=true, that is a failure.
import { spawn } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import pg from 'pg'
import { isRunning, removeStaleLeftovers } from './test-leftovers.mjs'
import { buildWhenStale } from './build-freshness.mjs'
import { bundleTests } from './test-bundle.mjs'
import { FULL, LONG, SERIAL_PATHS, TIERS } from './test-tiers.mjs'

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test'
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379'
const DEFAULT_CONCURRENCY = 3
// A folder of this run's own, so that two runs at once never overwrite each other's bundles.
const BUNDLE_DIR = `.test-bundle/run-${process.pid}`
const SUMMARY_KEYS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo', 'duration_ms']
const BACKEND_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL + Redis' }

const started = performance.now()
const { tiers, filters, backend, concurrency } = parseArguments(process.argv.slice(2))
const isCi = /^(1|true|yes)$/i.test(process.env.CI ?? '')
const databaseUrl = process.env.LATCHKEY_TEST_DATABASE_URL || DEFAULT_DATABASE_URL
const redisUrl = process.env.LATCHKEY_TEST_REDIS_URL || DEFAULT_REDIS_URL

function fail(message) {
  console.error(message)
  process.exit(1)
}

function parseArguments(args) {
  const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
  const backend = option('backend')
  if (backend !== undefined && !(backend in BACKEND_NAMES)) fail(`--backend must be sqlite or postgres, not ${backend}`)
  const concurrency = Number(option('concurrency') ?? process.env.LATCHKEY_TEST_CONCURRENCY ?? DEFAULT_CONCURRENCY)
  if (!Number.isInteger(concurrency) || concurrency < 1) fail('--concurrency must be a whole number of at least 1')
  const unknown = args.filter((a) => a.startsWith('--') && !/^--(backend|concurrency)=/.test(a))
  if (unknown.length > 0) fail(`unknown option ${unknown[0]}`)
  const words = args.filter((a) => !a.startsWith('--'))
  const byName = new Map([...TIERS, FULL, LONG].map((tier) => [tier.name, tier]))
  const tiers = words.filter((w) => byName.has(w)).map((w) => byName.get(w))
  const filters = words.filter((w) => !byName.has(w))
  for (const path of filters) if (!existsSync(path)) fail(`no tier or path named ${path} (tiers: ${[...byName.keys()].join(', ')})`)
  return { tiers: tiers.length > 0 ? tiers : TIERS, filters, backend, concurrency }
}

function findTests(path) {
  if (!existsSync(path)) return []
  if (statSync(path).isFile()) return path.endsWith('.test.ts') ? [path] : []
  return readdirSync(path)
    .sort()
    .flatMap((name) => findTests(join(path, name)))
}

/** The bundle folders of runs whose process is gone (a run stopped by Ctrl-C keeps its own). */
function removeBundlesOfEndedRuns() {
  if (!existsSync('.test-bundle')) return
  for (const name of readdirSync('.test-bundle')) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1])
    if (pid && !isRunning(pid)) rmSync(join('.test-bundle', name), { recursive: true, force: true })
  }
}

const isUnder = (file, path) => file === path || file.startsWith(`${path.replace(/\/$/, '')}/`)

/** A group's files: under its paths, outside the serial paths unless it is serial, inside the filters. */
function filesOf(group) {
  const files = [...new Set(group.paths.flatMap(findTests))]
  return files.filter(
    (file) =>
      (group.serial || !SERIAL_PATHS.some((path) => isUnder(file, path))) && (filters.length === 0 || filters.some((path) => isUnder(file, path))),
  )
}

/** Runs node --test on the files' bundles, echoing its output; resolves with its exit code and summary counts. */
function runNodeTest(files, env, filesAtOnce) {
  return new Promise((resolve) => {
    const args = ['--enable-source-maps', '--test', `--test-concurrency=${filesAtOnce}`, '--test-reporter=spec', ...files.map((file) => bundles.get(file))]
    const child = spawn(process.execPath, args, { env, stdio: ['inherit', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      process.stdout.write(chunk)
      output += chunk
    })
    child.on('close', (code, signal) => {
      const summary = {}
      for (const key of SUMMARY_KEYS) {
        const matches = [...output.matchAll(new RegExp(`^ℹ ${key} ([\\d.]+)$`, 'gm'))]
        if (matches.length > 0) summary[key] = Number(matches.at(-1)[1])
      }
      resolve({ code: code ?? (signal ? 1 : 0), summary })
    })
  })
}

const redact = (url) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')
const reasonOf = (error) => error?.message || error?.code || error?.errors?.[0]?.message || String(error)

/** Undefined when PostgreSQL and Redis both answer, else why not. */
async function unreachable() {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('select 1')
  } catch (error) {
    return `PostgreSQL at ${redact(databaseUrl)} does not answer (${reasonOf(error)})`
  } finally {
    await client.end().catch(() => {})
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null })
  redis.on('error', () => {})
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    return `Redis at ${redact(redisUrl)} does not answer (${reasonOf(error)})`
  } finally {
    redis.disconnect()
  }
  return undefined
}

const baseEnv = { ...process.env }
delete baseEnv.LATCHKEY_TEST_DATABASE_URL
delete baseEnv.LATCHKEY_TEST_REDIS_URL
const postgresEnv = { ...baseEnv, LATCHKEY_TEST_DATABASE_URL: databaseUrl, LATCHKEY_TEST_REDIS_URL: redisUrl }

/** Checked once, before the first PostgreSQL group: undefined when the services answer, else why not. */
let postgresProblem
async function postgresReady() {
  if (postgresProblem === undefined) {
    postgresProblem = (await unreachable()) ?? false
    if (!postgresProblem) {
      await removeStaleLeftovers(databaseUrl, redisUrl).catch((error) => console.log(`(could not remove stale test schemas: ${reasonOf(error)})`))
    }
  }
  return postgresProblem
}

const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`
const minutes = (ms) => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`

// The process tests run the installed command (bin/latchkey.js over dist/), never a stale build.
buildWhenStale(process.cwd())

// Every file to run, bundled once (scripts/test-bundle.mjs): plain Node starts a test file in a
// third of the time tsx takes.
const planned = [...new Set(tiers.flatMap((tier) => tier.groups.filter((g) => backend === undefined || g.backend === backend).flatMap(filesOf)))]
const bundles = new Map()
removeBundlesOfEndedRuns()
process.on('exit', () => rmSync(BUNDLE_DIR, { recursive: true, force: true }))
if (planned.length > 0) {
  const bundled = await bundleTests(planned, BUNDLE_DIR)
  planned.forEach((file, i) => bundles.set(file, bundled[i]))
}

const results = []
let failed = false
let ranFiles = 0
for (const tier of tiers) {
  for (const group of tier.groups) {
    if (backend !== undefined && group.backend !== backend) continue
    const files = filesOf(group)
    if (files.length === 0) continue
    const label = `${tier.name}, ${BACKEND_NAMES[group.backend]}${group.serial ? ', one file at a time' : ''}`
    if (group.backend === 'postgres') {
      const problem = await postgresReady()
      if (problem) {
        results.push({ label, files: files.length, skippedBecause: problem })
        if (isCi) failed = true
        continue
      }
    }
    console.log(`\n■ ${label}: ${files.length} files`)
    const groupStarted = performance.now()
    const env = { ...(group.backend === 'postgres' ? postgresEnv : baseEnv), ...group.env }
    const { code, summary } = await runNodeTest(files, env, group.serial ? 1 : concurrency)
    ranFiles += files.length
    if (code !== 0 || summary.fail === undefined || summary.fail > 0) failed = true
    results.push({ label, files: files.length, code, summary, ms: performance.now() - groupStarted })
  }
}

if (results.length === 0) fail(`no test files in ${filters.join(' ')}`)
const total = Object.fromEntries(SUMMARY_KEYS.map((key) => [key, results.reduce((sum, r) => sum + (r.summary?.[key] ?? 0), 0)]))
// A group that failed without counting a failure (it crashed, or could not run under CI) counts as one.
total.fail = Math.max(total.fail, failed ? 1 : 0)
const elapsed = performance.now() - started
console.log('')
for (const r of results) {
  if (r.skippedBecause) {
    console.log(`ℹ ${r.label}: ${r.files} files ${isCi ? 'cannot run (CI=true requires PostgreSQL and Redis)' : 'skipped'}: ${r.skippedBecause}`)
    continue
  }
  const s = r.summary
  const exit = r.code !== 0 ? ` (exit code ${r.code})` : ''
  console.log(`ℹ ${r.label}: ${r.files} files, ${s.pass ?? 0} passed, ${s.fail ?? '?'} failed, ${s.skipped ?? 0} skipped in ${seconds(r.ms)}${exit}`)
}
console.log(`ℹ ${ranFiles} files run in ${minutes(elapsed)}, ${concurrency} files at once`)
for (const key of SUMMARY_KEYS) console.log(`ℹ ${key} ${key === 'duration_ms' ? elapsed.toFixed(3) : total[key]}`)
console.log(`total: ${total.pass} passed, ${total.fail} failed, ${total.skipped} skipped`)
process.exit(failed ? 1 : 0)
