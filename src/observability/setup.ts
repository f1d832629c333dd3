import type { AppMetrics } from '../app.ts'
import type { Observed } from '../compose.ts'
import type { Config } from '../config/settings.ts'
import type { Storage } from '../storage/types.ts'
import { isPostgresUrl } from '../storage/urls.ts'
import { workerScrape } from './cluster-metrics.ts'
import { instrumentStorage, type StorageInstrument } from './instrument-stores.ts'
import { createMetrics, type Metrics } from './metrics.ts'
import type { Tracing } from './tracing.ts'

/** What the server wires in: the domain's observer and store wrapper, the app's metrics, the scrape. */
export interface Observability {
  metrics: Metrics
  observed: Observed
  app: AppMetrics
  /** The metrics text for GET /metrics: this process's, or with --workers every worker's. */
  scrape(): Promise<string>
}

export function createObservability(config: Config, options: { isClusterWorker: boolean; tracing?: Tracing | undefined }): Observability {
  const metrics = createMetrics()
  const timed: StorageInstrument = async (backend, operation, call) => {
    const startedAt = performance.now()
    try {
      return await call()
    } finally {
      metrics.storageOperation(backend, operation, (performance.now() - startedAt) / 1000)
    }
  }
  const outer = options.tracing?.storageInstrument
  const instrument: StorageInstrument = outer ? (backend, operation, call) => outer(backend, operation, () => timed(backend, operation, call)) : timed
  const scrape = options.isClusterWorker ? workerScrape(metrics.registry) : () => metrics.scrape()
  return {
    metrics,
    observed: {
      observer: options.tracing ? { ...metrics.observer, step: options.tracing.step } : metrics.observer,
      instrument(storage: Storage) {
        // Only the in-memory store has a capacity; Redis is bounded by its maxmemory.
        const nonces = storage.stores.nonces
        const capacity = (nonces as Partial<{ capacity: number }>).capacity
        if (typeof capacity === 'number') metrics.watchNonceStore({ size: () => nonces.entryCount(Date.now()) ?? 0, capacity })
        const backends = { database: isPostgresUrl(config.database) ? 'postgres' : 'sqlite', shared: config.redis ? 'redis' : 'memory' } as const
        return instrumentStorage(storage, backends, instrument)
      },
    },
    app: { httpRequest: metrics.httpRequest, ...(config.metricsPublic ? { publicScrape: scrape } : {}) },
    scrape,
  }
}
