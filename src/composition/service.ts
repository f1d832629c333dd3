import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { buildAdminApp } from '../admin/app.ts'
import type { TestKitControls } from '../admin/routes/test-kit.ts'
import type { TestKit } from '../app.ts'
import type { Config } from '../config/settings.ts'
import { createTestClock, systemClock, type TestClock } from '../domain/clock.ts'
import type { DomainDeps } from '../domain/deps.ts'
import { startHousekeeping, type Housekeeping } from '../domain/housekeeping.ts'
import { startRevocationDelivery, type RevocationDelivery } from '../domain/revocations/delivery.ts'
import { aggregateWorkerMetrics } from '../observability/cluster-metrics.ts'
import { createObservability, type Observability } from '../observability/setup.ts'
import { createFaultQueue } from '../web/test-kit/faults.ts'
import { createRequestJournal } from '../web/test-kit/journal.ts'
import { appMetricsOf, composeApp } from './apps.ts'
import { demoFilePath, readDemoFile } from './dev-demo.ts'
import { composeDomain } from './root.ts'
import { httpSettings } from './settings.ts'

/** The whole service as `serve` runs it (and the test kit, `serve --test`): built, not yet listening. */
export interface Service {
  domain: DomainDeps
  /** The metrics and their scrape, for the admin listener's GET /metrics. */
  observability: Observability
  /** The public listener's app. */
  app: FastifyInstance
  /** The admin API's app, with `--admin-port`. */
  admin: FastifyInstance | undefined
  /** The test mode's controls (`--test`): its clock and its reset; undefined otherwise. */
  testKit: TestKitControls | undefined
  /** Once listening: the housekeeping (audit retention, expired rows) and the revocation push's delivery, which close() stops. */
  startHousekeeping(): void
  /** Stops the apps (in-flight requests drain) and the housekeeping, then writes in flight, tracing and the stores. */
  close(): Promise<void>
}

export interface ServiceOptions {
  logger: Logger
  https: { cert: Buffer; key: Buffer } | undefined
  /** One worker of `--workers N`: its scrape asks the primary for every worker's metrics. */
  isClusterWorker: boolean
  /** The admin API's base URL once its listener listens, for the front door. */
  adminUrl(): string | undefined
}

/** config → observability → stores and domain → the apps. */
export async function composeService(config: Config, options: ServiceOptions): Promise<Service> {
  const { logger, https } = options
  const testClock = config.test ? createTestClock() : undefined
  // The SDK is imported only when traces are wanted: without an endpoint, tracing costs nothing.
  const tracing = config.otelEndpoint ? (await import('../observability/tracing.ts')).startTracing(config.otelEndpoint) : undefined
  const observability = createObservability(config, { isClusterWorker: options.isClusterWorker, tracing })
  const domain = await composeDomain(config, testClock ?? systemClock, { observed: observability.observed }).catch(async (error: unknown) => {
    await tracing?.shutdown()
    throw error
  })
  const closeDomain = async () => {
    // Signature failures handed over to be written go in before the database closes.
    await domain.signatureFailures?.settled()
    await tracing?.shutdown()
    await domain.runtime.close()
  }
  try {
    // The test mode's failures on demand and journal: on the public app, nothing installed otherwise.
    const appTestKit = testClock && { faults: createFaultQueue(), journal: createRequestJournal({ now: () => testClock.nowMs() }) }
    const home = { demo: () => (config.dev ? readDemoFile(demoFilePath(config.database)) : undefined), adminUrl: options.adminUrl }
    const app = await composeApp({
      domain,
      logger,
      ...(appTestKit ? { testKit: appTestKit } : {}),
      metrics: appMetricsOf(config, observability),
      tracing,
      http: httpSettings(config, domain, { https, home }),
    })
    const testKit = testClock && appTestKit && testKitOf(testClock, appTestKit, domain)
    const admin = config.adminPort === undefined
      ? undefined
      : await buildAdminApp({ domain, logger, scrape: observability.scrape, publicUrl: config.publicUrl ? new URL(config.publicUrl) : undefined, ...(https ? { https } : {}), ...(testKit ? { testKit } : {}) })
    let housekeeping: Housekeeping | undefined
    let delivery: RevocationDelivery | undefined
    return {
      domain,
      observability,
      app,
      admin,
      testKit,
      startHousekeeping() {
        housekeeping = startHousekeeping(domain, {
          auditRetentionDays: config.auditRetentionDays,
          onError: (message, error) => logger.warn({ err: error }, message),
        })
        delivery = startRevocationDelivery(domain, {
          holder: `${hostname()}:${process.pid}:${randomUUID()}`,
          publish: domain.runtime.publishRevocation,
          onError: (message, error) => logger.warn({ err: error }, message),
        })
      },
      async close() {
        await Promise.all([app.close(), admin?.close(), housekeeping?.stop(), delivery?.stop()])
        // The repeats counted since their last row: written before the stores close.
        await domain.handOuts.flush({ all: true }).catch((error: unknown) => logger.warn({ err: error }, 'could not write the counted bearer-token hand-outs'))
        await closeDomain()
      },
    }
  } catch (error) {
    await closeDomain()
    throw error
  }
}

/** The primary of `--workers N`: its domain (to check the stores and seed the demo), and its workers' metrics gathered for a scrape. */
export async function composePrimary(config: Config): Promise<DomainDeps> {
  const domain = await composeDomain(config)
  aggregateWorkerMetrics()
  return domain
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
