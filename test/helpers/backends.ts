import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import pg from 'pg'

/**
 * The shared PostgreSQL and Redis of the PostgreSQL + Redis groups of `npm test` (scripts/run-tests.mjs sets both
 * variables when the services answer). Every user gets a fresh schema or key prefix of its own and
 * removes it afterwards, so runs never see each other's rows and leave nothing behind.
 */
export const TEST_DATABASE_URL = process.env.LATCHKEY_TEST_DATABASE_URL || undefined
export const TEST_REDIS_URL = process.env.LATCHKEY_TEST_REDIS_URL || undefined

/** Why a PostgreSQL + Redis test is skipped in this run, or false when it runs. */
export const SHARED_BACKENDS_SKIP: string | false =
  TEST_DATABASE_URL && TEST_REDIS_URL
    ? false
    : 'runs in the PostgreSQL + Redis groups of npm test (LATCHKEY_TEST_DATABASE_URL and LATCHKEY_TEST_REDIS_URL unset)'

/** Why a test that reads the SQLite file itself is skipped in this run, or false when it runs. */
export const SQLITE_ONLY_SKIP: string | false = TEST_DATABASE_URL ? 'reads the SQLite file itself; this run is on PostgreSQL' : false

/**
 * `latchkey_test_<ms base 36>_p<pid>_<8 hex>`: when and by which process, so that the clean-up of
 * another run's leftovers (scripts/test-leftovers.mjs) never removes what a running test still uses.
 */
const uniqueName = (stem: string) => `${stem}_${Date.now().toString(36)}_p${process.pid}_${randomBytes(4).toString('hex')}`

/** `url` with `search_path` set to `schema` for every connection (libpq's `options` parameter). */
export function withSearchPath(url: string, schema: string): string {
  const separator = url.includes('?') ? '&' : '?'
  return `${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`
}

export interface TestSchema {
  schema: string
  /** The base URL with this schema as its search_path. */
  url: string
  /** Drops the schema and everything in it. */
  drop(): Promise<void>
}

const pools = new Map<string, pg.Pool>()

/**
 * Runs one statement on a pooled connection for `url` (a connection costs tens of ms: tests that
 * read every table after each request would spend most of their time opening them). The pools
 * let the process exit while idle.
 */
export async function runSql<T extends object = Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  let pool = pools.get(url)
  if (!pool) {
    pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 5_000, max: 2, idleTimeoutMillis: 1_000, allowExitOnIdle: true })
    pool.on('error', () => {})
    pools.set(url, pool)
  }
  return (await pool.query<T>(text)).rows
}

/** A fresh, empty schema `latchkey_test_…` in the database of `baseUrl`. */
export async function createTestSchema(baseUrl: string = requireUrl(TEST_DATABASE_URL, 'LATCHKEY_TEST_DATABASE_URL')): Promise<TestSchema> {
  const schema = uniqueName('latchkey_test')
  await runSql(baseUrl, `create schema ${schema}`)
  return {
    schema,
    url: withSearchPath(baseUrl, schema),
    drop: async () => void (await runSql(baseUrl, `drop schema if exists ${schema} cascade`)),
  }
}

export interface TestRedisPrefix {
  prefix: string
  /** Deletes every key under the prefix. */
  clean(): Promise<void>
}

/** A fresh key prefix `latchkey_test_…:` on the Redis of `url`. */
export function createTestRedisPrefix(url: string = requireUrl(TEST_REDIS_URL, 'LATCHKEY_TEST_REDIS_URL')): TestRedisPrefix {
  const prefix = `${uniqueName('latchkey_test')}:`
  return { prefix, clean: () => deleteRedisKeys(url, prefix) }
}

/** Deletes every key that starts with `prefix`. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
  await redis.connect()
  try {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000)
      cursor = next
      if (keys.length > 0) await redis.del(...keys)
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}

/** The keys under a prefix (for tests that check what was stored). */
export async function listRedisKeys(url: string, prefix: string): Promise<string[]> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
  await redis.connect()
  try {
    return await redis.keys(`${escapeGlob(prefix)}*`)
  } finally {
    redis.disconnect()
  }
}

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&')

function requireUrl(url: string | undefined, variable: string): string {
  if (!url) throw new Error(`${variable} is not set`)
  return url
}
