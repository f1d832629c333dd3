import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { ConfigError } from './config/load.ts'
import { checkServeRules } from './config/serve-rules.ts'
import type { Config } from './config/settings.ts'
import type { DomainDeps } from './domain/deps.ts'
import { createLogger } from './logging.ts'
import { isClusterWorker } from './cluster.ts'
import type { TestKitControls } from './admin/routes/test-kit.ts'
import type { Observability } from './observability/setup.ts'
import { startProcessStats } from './process-stats.ts'
import { takeServeLock, type ServeLock } from './storage/index.ts'
import { isPostgresUrl } from './storage/urls.ts'
import { retireDevelopmentDemo } from './composition/dev-demo.ts'
import { composeService } from './composition/service.ts'
import { tlsOf } from './composition/settings.ts'

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

/** loadConfig → composeService (src/composition/) → listen. */
export async function startServer(config: Config): Promise<RunningServer> {
  checkServeRules(config)
  const https = tlsOf(config)
  const serveLock = lockIfAlone(config)
  // The test mode's stdout is its one start line, for the test suite to read: its log goes to stderr.
  const logger = createLogger({ dev: config.dev, level: config.logLevel, bufferBytes: config.logBufferBytes, ...(config.test ? { fd: 2 } : {}) })
  let adminUrl: string | undefined
  const service = await composeService(config, { logger, https, isClusterWorker: isClusterWorker(), adminUrl: () => adminUrl }).catch((error: unknown) => {
    serveLock?.abandon()
    throw error
  })
  const stop = async () => {
    await service.close()
    serveLock?.release()
  }
  // Before the first request: a development database's admin token and demo stop in production.
  if (!config.dev && !config.test && !isClusterWorker()) {
    await sayDevelopmentRetired(service.domain, config.database, logger).catch(async (error: unknown) => {
      await stop()
      throw error
    })
  }
  await listenOrSay(service.app, config.host, config.port, 'with --port or LATCHKEY_PORT', '').catch(async (error: unknown) => {
    await stop()
    throw error
  })
  if (service.admin) {
    await listenOrSay(service.admin, config.adminHost, config.adminPort!, 'with --admin-port or LATCHKEY_ADMIN_PORT', ' (admin API)').catch(async (error: unknown) => {
      await stop()
      throw error
    })
    adminUrl = baseUrl(service.admin, config.adminHost, !!https)
  }
  service.startHousekeeping()
  const stopStats = startProcessStats(logger, service.domain.stores.nonces, config.statsIntervalSeconds)
  return {
    app: service.app,
    domain: service.domain,
    observability: service.observability,
    url: baseUrl(service.app, config.host, !!https),
    adminUrl,
    logger,
    testKit: service.testKit,
    async close() {
      stopStats()
      await stop()
    },
  }
}

/** Listens, or says in one line why it cannot. */
async function listenOrSay(app: FastifyInstance, host: string, port: number, choose: string, which: string): Promise<void> {
  try {
    await app.listen({ host, port })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const hint = code === 'EADDRINUSE' ? ` (another process has this port: choose another ${choose})` : ''
    throw new ConfigError(`cannot listen on ${host}:${port}${which}: ${code ?? (error as Error).message}${hint}`)
  }
}

function baseUrl(app: FastifyInstance, configuredHost: string, isHttps: boolean): string {
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const host = configuredHost.includes(':') ? `[${configuredHost}]` : configuredHost
  return `${isHttps ? 'https' : 'http'}://${host}:${port}`
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

/** Production on a database the development server made: what it made for a newcomer stops, and the log says so. */
export async function sayDevelopmentRetired(domain: DomainDeps, database: string, logger: Pick<Logger, 'warn'>): Promise<void> {
  for (const done of await retireDevelopmentDemo(domain, database)) logger.warn(`a development database in production: ${done}`)
}
