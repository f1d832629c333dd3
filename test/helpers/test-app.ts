import Sqlite from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import { buildApp, type HttpSettings } from '../../src/app.ts'
import type { Clock } from '../../src/domain/clock.ts'
import type { DomainDeps, DomainSettings } from '../../src/domain/deps.ts'
import { createDomainDeps } from '../../src/compose.ts'
import { openStores } from '../../src/storage/open-stores.ts'

export const DEFAULT_SETTINGS: DomainSettings = {
  requestTokenTtlSeconds: 900,
  timestampSkewSeconds: 300,
  bearerTokenCallsPerWindow: 60,
  rateLimitWindowSeconds: 900,
  signInMaxFailures: 5,
  signInWindowSeconds: 900,
}

/** A clock tests can move. */
export function testClock(startMs = Date.now()): Clock & { advance(ms: number): void } {
  let now = startMs
  return { nowMs: () => now, advance: (ms) => void (now += ms) }
}

export interface TestDomain {
  domain: DomainDeps
  dbPath: string
  close(): Promise<void>
}

/** The real stores on a fresh SQLite file in a temp folder, removed on close. */
export async function openTestDomain(options: { clock?: Clock; settings?: Partial<DomainSettings> } = {}): Promise<TestDomain> {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-test-'))
  const dbPath = join(dir, 'latchkey.sqlite')
  const stores = await openStores({ databaseUrl: dbPath })
  const clock = options.clock ?? { nowMs: () => Date.now() }
  const domain: DomainDeps = createDomainDeps(stores, { ...DEFAULT_SETTINGS, ...options.settings }, clock)
  return {
    domain,
    dbPath,
    async close() {
      await stores.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export interface TestApp extends TestDomain {
  app: FastifyInstance
}

/** The whole service, built as `serve` builds it, on a fresh SQLite file; not listening until you call listen. */
export async function buildTestApp(
  options: { clock?: Clock; settings?: Partial<DomainSettings>; http?: Partial<HttpSettings> } = {},
): Promise<TestApp> {
  const testDomain = await openTestDomain(options)
  const app = await buildApp({
    domain: testDomain.domain,
    logger: pino({ level: process.env.LATCHKEY_TEST_LOG ?? 'silent' }),
    http: { dev: true, publicUrl: undefined, trustProxy: [], cookieSecret: 'test-cookie-secret-0123456789abcdef', ...options.http },
  })
  return {
    ...testDomain,
    app,
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

/** Rows in a table, read straight from the SQLite file: proof that an error wrote nothing. */
export function countRows(dbPath: string, table: 'request_tokens' | 'access_tokens' | 'bearer_tokens' | 'users' | 'apps'): number {
  const db = new Sqlite(dbPath, { readonly: true })
  try {
    return (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n
  } finally {
    db.close()
  }
}
