// Runs the test suite with node:test through tsx, in two passes:
//   1. on SQLite, nonces and limits in memory (the embedded default);
//   2. on PostgreSQL + Redis: LATCHKEY_TEST_DATABASE_URL and LATCHKEY_TEST_REDIS_URL are set (to the
//      values in the environment, else the machine's local services), and every test that opens
//      storage gets a schema and a Redis key prefix of its own.
// Pass 2 runs when both services answer. When they do not, it is skipped with a one-line reason, or,
// with CI=true, that is a failure. Arguments narrow the suite to folders or files
// (`npm test -- test/protocol`); `--only=sqlite` or `--only=postgres` runs one pass.
// The last lines are the totals of both passes, so a failure in either shows at the end.
import { spawn } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import pg from 'pg'
import { removeStaleLeftovers } from './test-leftovers.mjs'

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test'
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379'

function findTests(path) {
  if (statSync(path).isFile()) return path.endsWith('.test.ts') ? [path] : []
  return readdirSync(path)
    .sort()
    .flatMap((name) => findTests(join(path, name)))
}

const args = process.argv.slice(2)
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length)
if (only !== undefined && only !== 'sqlite' && only !== 'postgres') {
  console.error(`--only must be sqlite or postgres, not ${only}`)
  process.exit(1)
}
const roots = args.filter((a) => !a.startsWith('--only='))
const files = (roots.length > 0 ? roots : ['test']).flatMap(findTests)
if (files.length === 0) {
  console.error('no test files found under', roots.join(' ') || 'test')
  process.exit(1)
}
const isCi = /^(1|true|yes)$/i.test(process.env.CI ?? '')
const databaseUrl = process.env.LATCHKEY_TEST_DATABASE_URL || DEFAULT_DATABASE_URL
const redisUrl = process.env.LATCHKEY_TEST_REDIS_URL || DEFAULT_REDIS_URL

const SUMMARY_KEYS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo', 'duration_ms']

/** Runs node --test on the files, echoing its output; resolves with its exit code and summary counts. */
function runPass(env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
      env,
      stdio: ['inherit', 'pipe', 'inherit'],
    })
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

/** Undefined when both services answer, else why not. */
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

const passes = []
let failed = false
if (only !== 'postgres') {
  console.log('▶ pass 1: SQLite, nonces and limits in memory')
  passes.push({ name: 'SQLite', ...(await runPass(baseEnv)) })
}
let skipLine
if (only !== 'sqlite') {
  const reason = await unreachable()
  if (reason) {
    skipLine = `PostgreSQL + Redis pass ${isCi ? 'cannot run (CI=true requires it)' : 'skipped'}: ${reason}`
    if (isCi) failed = true
  } else {
    await removeStaleLeftovers(databaseUrl, redisUrl).catch((error) => console.log(`(could not remove stale test schemas: ${reasonOf(error)})`))
    console.log(`▶ pass 2: PostgreSQL ${redact(databaseUrl)} + Redis ${redact(redisUrl)}`)
    const env = { ...baseEnv, LATCHKEY_TEST_DATABASE_URL: databaseUrl, LATCHKEY_TEST_REDIS_URL: redisUrl }
    passes.push({ name: 'PostgreSQL + Redis', ...(await runPass(env)) })
  }
}

for (const pass of passes) {
  if (pass.code !== 0 || pass.summary.fail === undefined || pass.summary.fail > 0) failed = true
}
const total = Object.fromEntries(SUMMARY_KEYS.map((key) => [key, passes.reduce((sum, pass) => sum + (pass.summary[key] ?? 0), 0)]))
console.log('')
for (const pass of passes) {
  const s = pass.summary
  console.log(`ℹ ${pass.name} pass: ${s.pass ?? 0} passed, ${s.fail ?? '?'} failed, ${s.skipped ?? 0} skipped${pass.code !== 0 ? ` (exit code ${pass.code})` : ''}`)
}
if (skipLine) console.log(`ℹ ${skipLine}`)
// A pass that failed without counting a failure (it crashed, or could not run under CI) counts as one.
total.fail = Math.max(total.fail, failed ? 1 : 0)
console.log(`ℹ both passes, totals:`)
for (const key of SUMMARY_KEYS) console.log(`ℹ ${key} ${key === 'duration_ms' ? total[key].toFixed(3) : total[key]}`)
console.log(`total: ${total.pass} passed, ${total.fail} failed, ${total.skipped} skipped`)
process.exit(failed ? 1 : 0)
