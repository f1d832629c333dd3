import type { Config } from '../config/settings.ts'
import type { DomainObserver } from '../domain/observe.ts'
import type { Storage } from '../storage/types.ts'
import { isPostgresUrl } from '../storage/urls.ts'
import { workerScrape } from './cluster-metrics.ts'
import { instrumentStorage, type StorageInstrument } from './instrument-stores.ts'
import { createMetrics, type Metrics } from './metrics.ts'
import type { Tracing } from './tracing.ts'

/**
 * Each storage operation timed into its histogram series, found once per operation (a unit of
 * work's stores are wrapped at each unit: the same operation finds its series in `byOperation`).
 * One derived promise a call, not an async function's: the wrapper is on every store call.
 */
function measuredStorage(metrics: Metrics, traced: StorageInstrument | undefined): StorageInstrument {
  const byOperation = new Map<string, ReturnType<StorageInstrument>>()
  const timed: StorageInstrument = (backend, operation) => {
    const series = metrics.storageSeries(backend, operation)
    return (call) => {
      const startedAt = performance.now()
      const observe = () => series.observe((performance.now() - startedAt) / 1000)
      return call().then(
        (value) => {
          observe()
          return value
        },
        (error: unknown) => {
          observe()
          throw error
        },
      )
    }
  }
  return (backend, operation) => {
    const key = `${backend} ${operation}`
    let measure = byOperation.get(key)
    if (!measure) {
      const measureTime = timed(backend, operation)
      const measureSpan = traced?.(backend, operation)
      measure = measureSpan ? (call) => measureSpan(() => measureTime(call)) : measureTime
      byOperation.set(key, measure)
    }
    return measure
  }
}

/** The server's observability: every storage call measured, and the domain's events counted. */
export interface Observed {
  instrument(storage: Storage): Storage
  observer: DomainObserver
}

/** What the composition root wires in: the domain's observer and store wrapper, the metrics, the scrape. */
export interface Observability {
  metrics: Metrics
  observed: Observed
  /** The metrics text for GET /metrics: this process's, or with --workers every worker's. */
  scrape(): Promise<string>
}

export function createObservability(config: Config, options: { isClusterWorker: boolean; tracing?: Tracing | undefined }): Observability {
  const metrics = createMetrics()
  const instrument = measuredStorage(metrics, options.tracing?.storageInstrument)
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
    scrape,
  }
}
