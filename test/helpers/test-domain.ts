import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Clock } from '../../src/domain/clock.ts'
import type { DomainDeps, DomainSettings } from '../../src/domain/deps.ts'
import { createDomainDeps, domainSettings, nonceBudget } from '../../src/composition/root.ts'
import type { Observed } from '../../src/observability/setup.ts'
import { loadConfig } from '../../src/config/load.ts'
import type { SettingName } from '../../src/config/settings.ts'
import { openStorage } from '../../src/storage/open-stores.ts'
import { migrateDatabase } from '../../src/storage/index.ts'
import { TEST_DATABASE_URL, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema } from './backends.ts'
import { testKeyring } from './keys.ts'
// Every test that opens the use cases hashes passwords at a lower scrypt cost (see the file):
// test/domain/passwords.test.ts, which does not come through here, and the process tests keep it.
import './cheap-password-hashing.ts'

// The use cases on fresh real storage, without the HTTP layer: nothing here imports Fastify, so the
// domain tests (and their mutation runs, which start Node once per mutant) load only what they use.
// test-app.ts builds the whole service on top of this.

/** Settings by their config names, as `serve` would read them; production defaults for the rest. */
export type TestSettings = Partial<Record<SettingName, unknown>>

export function testDomainSettings(settings: TestSettings = {}): DomainSettings {
  return domainSettings(loadConfig({ env: {}, flags: settings }))
}

/**
 * A clock tests can move. Without a start it starts at the real time of its first reading, which
 * comes after the stores were opened: a request stamped by it is never before the nonce store's
 * epoch (the moment the store was created).
 */
export function testClock(startMs?: number): Clock & { advance(ms: number): void } {
  let now = startMs
  const read = () => (now ??= Date.now())
  return { nowMs: read, advance: (ms) => void (now = read() + ms) }
}

export interface TestDomain {
  domain: DomainDeps
  /**
   * What `--database` would be: the SQLite file, or on the PostgreSQL pass a postgres:// URL whose
   * search_path is this test's own schema. Works with countRows and as LATCHKEY_DATABASE_URL.
   */
  dbPath: string
  /** The Redis URL and key prefix of this test's nonces and limits (PostgreSQL pass only). */
  redis?: { url: string; keyPrefix: string }
  /** The CLI's settings for this storage: the database, and Redis where the service has it (so that its changes reach the cache). */
  cliEnv: Record<string, string>
  close(): Promise<void>
}

let template: Promise<string> | undefined

/**
 * An empty SQLite database with every migration applied, made once per process: each test's file
 * starts as a copy of it (a millisecond) instead of migrating anew (tens of milliseconds, most of
 * building a test app). openStorage still runs the migrator on it, which finds nothing to do; the
 * migrations themselves are tested on fresh databases (test/storage/sql).
 */
function migratedSqliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-template-'))
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
    const path = join(dir, 'latchkey.sqlite')
    // Closing the only connection checkpoints the WAL into the file and removes it.
    await migrateDatabase(path)
    return path
  })()
  return template
}

/** A fresh database and nonce/limit store for one test: see openTestDomain. */
async function openTestStorage(): Promise<{ dbPath: string; redis?: { url: string; keyPrefix: string }; remove(): Promise<void> }> {
  if (TEST_DATABASE_URL && TEST_REDIS_URL) {
    const schema = await createTestSchema(TEST_DATABASE_URL)
    const keys = createTestRedisPrefix(TEST_REDIS_URL)
    return {
      dbPath: schema.url,
      redis: { url: TEST_REDIS_URL, keyPrefix: keys.prefix },
      async remove() {
        await Promise.all([schema.drop(), keys.clean()])
      },
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-test-'))
  copyFileSync(await migratedSqliteTemplate(), join(dir, 'latchkey.sqlite'))
  // Called once the stores are closed (the checkpoint worker's connection too); the retries cover
  // whatever else still holds the folder for a moment (ENOTEMPTY, EBUSY), with a short pause between.
  return { dbPath: join(dir, 'latchkey.sqlite'), remove: () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) }
}

/**
 * The real stores on fresh storage, removed on close: a SQLite file in a temp folder with nonces and
 * limits in memory, or, when LATCHKEY_TEST_DATABASE_URL and LATCHKEY_TEST_REDIS_URL are set (the
 * PostgreSQL + Redis groups of npm test), a schema of its own in PostgreSQL and a key prefix of its own in Redis.
 */
export async function openTestDomain(
  options: { clock?: Clock; settings?: TestSettings; observed?: Observed; stateInMemory?: boolean; nonceEpochMs?: number } = {},
): Promise<TestDomain> {
  const storage = await openTestStorage()
  // stateInMemory: nonces and limits in this process even on the PostgreSQL pass (--single-instance).
  const redis = options.stateInMemory ? undefined : storage.redis
  const budget = nonceBudget(loadConfig({ env: {}, flags: options.settings ?? {} }))
  // A nonce store in memory counts as complete from a second before it opens (or from the given
  // moment): nothing ran before it on this fresh storage, and so no test waits for its epoch's second
  // to pass as `serve` does (up to a second a test). Redis keeps its epoch in Redis, settled as in production.
  const nonceEpochMs = redis ? undefined : (options.nonceEpochMs ?? Date.now() - 1000)
  const { stores, runtime } = await openStorage({
    keyring: testKeyring(),
    databaseUrl: storage.dbPath,
    redisUrl: redis?.url,
    redisKeyPrefix: redis?.keyPrefix,
    nonceBudget: budget,
    nonceEpochMs,
    ...(options.nonceEpochMs === undefined ? {} : { settleNonceEpoch: false }),
  }).catch(
    async (error: unknown) => {
      await storage.remove()
      throw error
    },
  )
  const clock = options.clock ?? { nowMs: () => Date.now() }
  const domain: DomainDeps = createDomainDeps({ stores, runtime }, testDomainSettings(options.settings), clock, options.observed?.observer, options.observed?.instrument)
  return {
    domain,
    dbPath: storage.dbPath,
    ...(storage.redis ? { redis: storage.redis } : {}),
    cliEnv: { LATCHKEY_DATABASE_URL: storage.dbPath, ...(redis ? { LATCHKEY_REDIS_URL: redis.url, LATCHKEY_REDIS_KEY_PREFIX: redis.keyPrefix } : {}) },
    async close() {
      await domain.signatureFailures?.settled()
      await runtime.close()
      await storage.remove()
    },
  }
}
