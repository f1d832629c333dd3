import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildAdminApp } from './admin/app.ts'
import { buildApp, type TestKit } from './app.ts'
import { createFaultQueue } from './web/test-kit/faults.ts'
import { createRequestJournal } from './web/test-kit/journal.ts'
import { composeDomain } from './composition/root.ts'
import { ConfigError } from './config/load.ts'
import { checkServeRules } from './config/serve-rules.ts'
import type { Config } from './config/settings.ts'
import type { DomainDeps } from './domain/deps.ts'
import { createLogger } from './logging.ts'
import { isClusterWorker } from './cluster.ts'
import { createTestClock, systemClock, type TestClock } from './domain/clock.ts'
import type { TestKitControls } from './admin/routes/test-kit.ts'
import { createObservability, type Observability } from './observability/setup.ts'
import { startProcessStats } from './process-stats.ts'
import { startHousekeeping } from './domain/housekeeping.ts'
import { takeServeLock, type ServeLock } from './storage/index.ts'
import { isPostgresUrl } from './storage/urls.ts'
import { demoFilePath, readDemoFile, retireDevelopmentDemo } from './cli/dev-demo.ts'

export interface RunningServer {
  app: FastifyInstance
  domain: DomainDeps
  /** The metrics and their scrape, for the admin listener's GET /metrics. */
  observability: Observability
  /** The base URL the server answers on, e.g. http://127.0.0.1:8080. */
  url: string
  /** The admin API's base URL, when its listener is on (--admin-port). */
  adminUrl: string | undefined
  /** The process's log: in production, the lines on stdout are its JSON lines only. */
  logger: Logger
  /** The test mode's controls (`--test`): its clock and its reset; undefined otherwise. */
  testKit: TestKitControls | undefined
  /** Stops accepting, drains in-flight requests, closes the database. */
  close(): Promise<void>
}

function readPem(path: string, setting: string): Buffer {
  try {
    return readFileSync(path)
  } catch (error) {
    throw new ConfigError(`invalid setting ${setting} (${path}): ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`)
  }
}

/** loadConfig → composeDomain → buildApp → listen. */
export async function startServer(config: Config): Promise<RunningServer> {
  checkServeRules(config)
  const https = config.tlsCert && config.tlsKey
    ? { cert: readPem(config.tlsCert, 'tlsCert'), key: readPem(config.tlsKey, 'tlsKey') }
    : undefined
  const serveLock = lockIfAlone(config)
  // The test mode's stdout is its one start line, for the test suite to read: its log goes to stderr.
  const logger = createLogger({ dev: config.dev, level: config.logLevel, bufferBytes: config.logBufferBytes, ...(config.test ? { fd: 2 } : {}) })
  const testClock = config.test ? createTestClock() : undefined
  // The SDK is imported only when traces are wanted: without an endpoint, tracing costs nothing.
  const tracing = config.otelEndpoint ? (await import('./observability/tracing.ts')).startTracing(config.otelEndpoint) : undefined
  const observability = createObservability(config, { isClusterWorker: isClusterWorker(), tracing })
  const domain = await composeDomain(config, testClock ?? systemClock, { observed: observability.observed }).catch(async (error: unknown) => {
    await tracing?.shutdown()
    serveLock?.abandon()
    throw error
  })
  // Before the first request: a development database's admin token and demo stop in production.
  if (!config.dev && !config.test && !isClusterWorker()) {
    await sayDevelopmentRetired(domain, config.database, logger).catch(async (error: unknown) => {
      await domain.runtime.close()
      await tracing?.shutdown()
      serveLock?.release()
      throw error
    })
  }
  // The test mode's failures on demand and journal: on the public app, nothing installed otherwise.
  const appTestKit = testClock && { faults: createFaultQueue(), journal: createRequestJournal({ now: () => testClock.nowMs() }) }
  const app = await buildApp({
    domain,
    logger,
    ...(appTestKit ? { testKit: appTestKit } : {}),
    metrics: observability.app,
    tracing,
    http: {
      dev: config.dev || config.test,
      publicUrl: config.publicUrl ? new URL(config.publicUrl) : undefined,
      cookieSecret: cookieSecrets(config, domain),
      hsts: config.hsts,
      allowSignup: config.allowSignup,
      autoConsent: config.autoConsent,
      accessLog: config.accessLog,
      home: config.home ? { demo: () => (config.dev ? readDemoFile(demoFilePath(config.database)) : undefined), adminUrl: () => adminUrl } : undefined,
      trustProxy: config.trustProxy ? config.trustProxy.split(',').map((s) => s.trim()).filter(Boolean) : [],
      ...(https ? { https } : {}),
    },
  })
  try {
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    await domain.runtime.close()
    await tracing?.shutdown()
    serveLock?.release()
    const code = (error as NodeJS.ErrnoException).code
    const hint = code === 'EADDRINUSE' ? ' (another process has this port: choose another with --port or LATCHKEY_PORT)' : ''
    throw new ConfigError(`cannot listen on ${config.host}:${config.port}: ${code ?? (error as Error).message}${hint}`)
  }
  let admin: FastifyInstance | undefined
  let adminUrl: string | undefined
  const testKit = testClock && appTestKit && testKitOf(testClock, appTestKit, domain)
  if (config.adminPort !== undefined) {
    try {
      admin = await buildAdminApp({ domain, logger, scrape: observability.scrape, ...(https ? { https } : {}), ...(testKit ? { testKit } : {}) })
      await admin.listen({ host: config.adminHost, port: config.adminPort })
      adminUrl = baseUrl(admin, config.adminHost, !!https)
    } catch (error) {
      await admin?.close()
      await app.close()
      await domain.runtime.close()
      await tracing?.shutdown()
      serveLock?.release()
      const code = (error as NodeJS.ErrnoException).code
      const hint = code === 'EADDRINUSE' ? ' (another process has this port: choose another with --admin-port or LATCHKEY_ADMIN_PORT)' : ''
      throw new ConfigError(`cannot listen on ${config.adminHost}:${config.adminPort} (admin API): ${code ?? (error as Error).message}${hint}`)
    }
  }
  const housekeeping = startHousekeeping(domain, {
    auditRetentionDays: config.auditRetentionDays,
    onError: (message, error) => logger.warn({ err: error }, message),
  })
  const stopStats = startProcessStats(logger, domain.stores.nonces, config.statsIntervalSeconds)
  return {
    app,
    domain,
    observability,
    url: baseUrl(app, config.host, !!https),
    adminUrl,
    logger,
    testKit,
    async close() {
      stopStats()
      await Promise.all([app.close(), admin?.close(), housekeeping.stop()])
      // Signature failures handed over to be written go in before the database closes.
      await domain.signatureFailures?.settled()
      await tracing?.shutdown()
      await domain.runtime.close()
      serveLock?.release()
    },
  }
}

function baseUrl(app: FastifyInstance, configuredHost: string, isHttps: boolean): string {
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const host = configuredHost.includes(':') ? `[${configuredHost}]` : configuredHost
  return `${isHttps ? 'https' : 'http'}://${host}:${port}`
}

/**
 * What signs session cookies: the configured secret, or one derived from the master keyring (so
 * every instance that shares the keys shares sessions). The first signs; the derived secret of
 * versions before HKDF is still accepted, so sessions from before the upgrade keep working.
 */
function cookieSecrets(config: Config, domain: DomainDeps): string[] {
  if (config.cookieSecret) return [config.cookieSecret]
  return [domain.runtime.deriveSecret('cookie-signing'), domain.runtime.legacyDerivedSecret('cookie')]
}

/**
 * A server on SQLite without Redis keeps its nonces in its own memory: a second one on the same
 * file would accept the first one's replays. The first takes the file's serve lock; the next one
 * refuses to start, saying what to do instead. Several servers share nonces only through Redis.
 */
function lockIfAlone(config: Config): ServeLock | undefined {
  if (isPostgresUrl(config.database) || config.redis) return undefined
  const lock = takeServeLock(config.database)
  if (!lock) {
    throw new ConfigError(
      `another latchkey server is running on ${config.database}: one server per SQLite file (for several instances use PostgreSQL and Redis: --database postgres://… --redis redis://…)`,
    )
  }
  return lock
}

/** The test mode's controls, where the storage keeps a state to reset to (the test mode's). */
function testKitOf(clock: TestClock, kit: TestKit, domain: DomainDeps): TestKitControls | undefined {
  const state = domain.runtime.testState
  return (
    state && {
      clock,
      ...kit,
      keep: () => state.keep(),
      async reset() {
        await state.restore()
        kit.faults.clear()
        kit.journal.clear()
      },
    }
  )
}

/** Production on a database the development server made: what it made for a newcomer stops, and the log says so. */
export async function sayDevelopmentRetired(domain: DomainDeps, database: string, logger: Pick<Logger, 'warn'>): Promise<void> {
  for (const done of await retireDevelopmentDemo(domain, database)) logger.warn(`a development database in production: ${done}`)
}
