import Sqlite from 'better-sqlite3'
import { mkdtempSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import { buildApp, type HttpSettings } from '../../src/app.ts'
import type { Clock } from '../../src/domain/clock.ts'
import type { DomainDeps, DomainSettings } from '../../src/domain/deps.ts'
import { createDomainDeps, domainSettings } from '../../src/compose.ts'
import { loadConfig } from '../../src/config/load.ts'
import type { SettingName } from '../../src/config/settings.ts'
import { createObservability, type Observability } from '../../src/observability/setup.ts'
import type { Observed } from '../../src/compose.ts'
import { openStorage } from '../../src/storage/open-stores.ts'
import { isPostgresUrl } from '../../src/storage/urls.ts'
import { TEST_DATABASE_URL, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema, runSql } from './backends.ts'
import { testKeyring } from './keys.ts'

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
  close(): Promise<void>
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
  // Called once the stores are closed (the checkpoint worker's connection too); the retries cover
  // whatever else still holds the folder for a moment (ENOTEMPTY, EBUSY), with a short pause between.
  return { dbPath: join(dir, 'latchkey.sqlite'), remove: () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) }
}

/**
 * The real stores on fresh storage, removed on close: a SQLite file in a temp folder with nonces and
 * limits in memory, or, when LATCHKEY_TEST_DATABASE_URL and LATCHKEY_TEST_REDIS_URL are set (the
 * second pass of npm test), a schema of its own in PostgreSQL and a key prefix of its own in Redis.
 */
export async function openTestDomain(options: { clock?: Clock; settings?: TestSettings; observed?: Observed; stateInMemory?: boolean } = {}): Promise<TestDomain> {
  const storage = await openTestStorage()
  // stateInMemory: nonces and limits in this process even on the PostgreSQL pass (--single-instance).
  const redis = options.stateInMemory ? undefined : storage.redis
  const nonceCapacity = loadConfig({ env: {}, flags: options.settings ?? {} }).nonceCapacity
  const { stores, runtime } = await openStorage({ keyring: testKeyring(), databaseUrl: storage.dbPath, redisUrl: redis?.url, redisKeyPrefix: redis?.keyPrefix, nonceCapacity }).catch(
    async (error: unknown) => {
      await storage.remove()
      throw error
    },
  )
  const clock = options.clock ?? { nowMs: () => Date.now() }
  const domain: DomainDeps = createDomainDeps(
    options.observed ? options.observed.instrument({ stores, runtime }) : { stores, runtime },
    testDomainSettings(options.settings),
    clock,
    options.observed?.observer,
  )
  return {
    domain,
    dbPath: storage.dbPath,
    ...(storage.redis ? { redis: storage.redis } : {}),
    async close() {
      await domain.signatureFailures?.settled()
      await runtime.close()
      await storage.remove()
    },
  }
}

export interface TestApp extends TestDomain {
  app: FastifyInstance
  /** With `metrics: true`: the metrics as `serve --metrics-public` wires them (GET /metrics on this app). */
  observability?: Observability
}

/** The whole service, built as `serve` builds it, on fresh storage (see openTestDomain); not listening until you call listen. */
export async function buildTestApp(
  options: { clock?: Clock; settings?: TestSettings; http?: Partial<HttpSettings>; metrics?: boolean; stateInMemory?: boolean } = {},
): Promise<TestApp> {
  const observability = options.metrics ? testObservability() : undefined
  const testDomain = await openTestDomain({ ...options, ...(observability ? { observed: observability.observed } : {}) })
  const app = await buildApp({
    ...(observability ? { metrics: observability.app } : {}),
    domain: testDomain.domain,
    logger: pino({ level: process.env.LATCHKEY_TEST_LOG ?? 'silent' }),
    http: { dev: true, publicUrl: undefined, trustProxy: [], cookieSecret: 'test-cookie-secret-0123456789abcdef', ...options.http },
  })
  return {
    ...testDomain,
    app,
    ...(observability ? { observability } : {}),
    async close() {
      await app.close()
      await testDomain.close()
    },
  }
}

export interface TestServer extends TestApp {
  /** http://127.0.0.1:PORT */
  url: string
}

/** buildTestApp, listening on a free loopback port: tests talk to it over a real socket. */
export async function startTestServer(options: Parameters<typeof buildTestApp>[0] = {}): Promise<TestServer> {
  const testApp = await buildTestApp(options)
  await testApp.app.listen({ host: '127.0.0.1', port: 0 })
  const address = testApp.app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { ...testApp, url: `http://127.0.0.1:${port}` }
}

/** Metrics as `serve --metrics-public` makes them, on this pass's backends. */
function testObservability(): Observability {
  const config = loadConfig({ env: {}, flags: { database: TEST_DATABASE_URL ?? 'test.sqlite', redis: TEST_REDIS_URL, metricsPublic: true } })
  return createObservability(config, { isClusterWorker: false })
}

/** Rows in a table, read straight from the database (SQLite file or PostgreSQL schema): proof that an error wrote nothing. */
export async function countRows(dbPath: string, table: 'request_tokens' | 'access_tokens' | 'bearer_tokens' | 'users' | 'apps' | 'audit_events' | 'admin_tokens'): Promise<number> {
  if (isPostgresUrl(dbPath)) {
    const rows = await runSql<{ n: number }>(dbPath, `select count(*)::int as n from ${table}`)
    return rows[0]?.n ?? 0
  }
  const db = new Sqlite(dbPath, { readonly: true })
  try {
    return (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n
  } finally {
    db.close()
  }
}

/**
 * Deletes a user or an app straight from the database (SQLite file or PostgreSQL schema), its
 * foreign keys not enforced: how a token's owner or app can go missing, which no store method does.
 */
export async function deleteBehindStores(dbPath: string, table: 'users' | 'apps', id: string): Promise<void> {
  if (isPostgresUrl(dbPath)) {
    // `replica` turns off the triggers that enforce foreign keys, for this session only.
    await runSql(dbPath, `set session_replication_role = replica; delete from ${table} where id = '${id.replace(/'/g, "''")}'`)
    return
  }
  const db = new Sqlite(dbPath)
  try {
    db.pragma('foreign_keys = OFF')
    db.prepare(`delete from ${table} where id = ?`).run(id)
  } finally {
    db.close()
  }
}
