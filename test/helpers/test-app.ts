import Sqlite from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import type { AppDeps, HttpSettings } from '../../src/app.ts'
import { appMetricsOf, composeApp } from '../../src/composition/apps.ts'
import type { Clock } from '../../src/domain/clock.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createObservability, type Observability } from '../../src/observability/setup.ts'
import { isPostgresUrl } from '../../src/storage/urls.ts'
import { TEST_DATABASE_URL, TEST_REDIS_URL, runSql } from './backends.ts'
import { openTestDomain, type TestDomain, type TestSettings } from './test-domain.ts'
import { overSocket, send, signedFetch, type HttpAnswer, type HttpRequest, type SignOptions, type Transport } from './oauth1-client.ts'

export { openTestDomain, testClock, testDomainSettings, type TestDomain, type TestSettings } from './test-domain.ts'

export interface TestApp extends TestDomain {
  app: FastifyInstance
  /** With `metrics: true`: the metrics as `serve --metrics-public` wires them (GET /metrics on this app). */
  observability?: Observability
}

/** The whole service, built as `serve` builds it, on fresh storage (see openTestDomain); not listening until you call listen. */
export async function buildTestApp(
  options: {
    clock?: Clock
    settings?: TestSettings
    http?: Partial<HttpSettings>
    metrics?: boolean
    stateInMemory?: boolean
    /** Every log line of the app at level info and above is pushed here (otherwise nothing is logged). */
    logLines?: string[]
    /** Test mode's failures on demand and request journal (src/web/test-kit/). */
    testKit?: AppDeps['testKit']
  } = {},
): Promise<TestApp> {
  const observability = options.metrics ? testObservability() : undefined
  const testDomain = await openTestDomain({ ...options, ...(observability ? { observed: observability.observed } : {}) })
  const app = await composeApp({
    ...(observability ? { metrics: appMetricsOf({ metricsPublic: true }, observability) } : {}),
    ...(options.testKit ? { testKit: options.testKit } : {}),
    domain: testDomain.domain,
    logger: options.logLines
      ? pino({ level: 'info' }, { write: (line: string) => void options.logLines!.push(line) })
      : pino({ level: process.env.LATCHKEY_TEST_LOG ?? 'silent' }),
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
  /** The base URL requests are signed for and sent to: http://127.0.0.1:PORT, or INJECTED_URL. */
  url: string
  /** How requests reach it: over the socket, or through Fastify's inject. */
  transport: Transport
  /** `send` of oauth1-client.ts through this server's transport. */
  send(request: HttpRequest): Promise<HttpAnswer>
  /** `signedFetch` of oauth1-client.ts through this server's transport. */
  signedFetch(options: SignOptions): Promise<HttpAnswer>
}

function reachedBy(transport: Transport): Pick<TestServer, 'transport' | 'send' | 'signedFetch'> {
  return { transport, send: (request) => send(request, transport), signedFetch: (options) => signedFetch(options, transport) }
}

/**
 * buildTestApp, listening on a free loopback port: tests talk to it over a real socket. For the
 * tests whose subject is the socket, TLS, the proxy headers or a real client library.
 */
export async function startTestServer(options: Parameters<typeof buildTestApp>[0] = {}): Promise<TestServer> {
  const testApp = await buildTestApp(options)
  await testApp.app.listen({ host: '127.0.0.1', port: 0 })
  const address = testApp.app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { ...testApp, url: `http://127.0.0.1:${port}`, ...reachedBy(overSocket) }
}

/** The host of an injected server's URLs: what its requests carry in Host and are signed for. */
export const INJECTED_URL = 'http://latchkey.test'

/** buildTestApp, not listening: its `send` and `signedFetch` go through Fastify's inject. */
export async function injectedTestServer(options: Parameters<typeof buildTestApp>[0] = {}): Promise<TestServer> {
  const testApp = await buildTestApp(options)
  return { ...testApp, url: INJECTED_URL, ...reachedBy(injectInto(testApp.app)) }
}

/** A transport that hands each request to the app's inject and answers a fetch Response. */
export function injectInto(app: FastifyInstance): Transport {
  return async (request) => {
    const answer = await app.inject({ method: request.method as 'GET', url: request.url, headers: request.headers ?? {}, ...(request.body === undefined ? {} : { payload: request.body }) })
    const headers = new Headers()
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(name, String(one))
    }
    const bodiless = answer.statusCode === 204 || answer.statusCode === 304 || request.method === 'HEAD'
    return new Response(bodiless ? null : new Uint8Array(answer.rawPayload), { status: answer.statusCode, headers })
  }
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
    // `replica` turns off the triggers that enforce foreign keys, for this transaction only (the
    // connection goes back to a pool).
    await runSql(dbPath, `begin; set local session_replication_role = replica; delete from ${table} where id = '${id.replace(/'/g, "''")}'; commit`)
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

/**
 * Changes one character of an app's stored consumer key or secret straight in the database (SQLite
 * file or PostgreSQL schema), as an edited backup or a damaged disk would: it no longer opens.
 */
export async function damageSealedKey(dbPath: string, appId: string, column: 'consumer_key' | 'consumer_secret'): Promise<void> {
  const damage = (sealed: string) => {
    const at = sealed.length - 20
    return `${sealed.slice(0, at)}${sealed[at] === 'A' ? 'B' : 'A'}${sealed.slice(at + 1)}`
  }
  const id = appId.replace(/'/g, "''")
  if (isPostgresUrl(dbPath)) {
    const [row] = await runSql<{ sealed: string }>(dbPath, `select ${column} as sealed from apps where id = '${id}'`)
    await runSql(dbPath, `update apps set ${column} = '${damage(row!.sealed)}' where id = '${id}'`)
    return
  }
  const db = new Sqlite(dbPath)
  try {
    const { sealed } = db.prepare(`select ${column} as sealed from apps where id = ?`).get(appId) as { sealed: string }
    db.prepare(`update apps set ${column} = ? where id = ?`).run(damage(sealed), appId)
  } finally {
    db.close()
  }
}
