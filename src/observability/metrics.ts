import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client'
import type { DomainObserver } from '../domain/observe.ts'
import { CounterSeriesTable, SeriesHistogram, type CounterSeries, type HistogramSeries } from './series.ts'

/**
 * The service's Prometheus metrics, in a registry of their own (docs/metrics.md is their contract:
 * names and labels do not change). Label values are fixed words, route patterns, rate-limit
 * resources and status codes only: never a token, key, id, screen name, address or free text.
 */

export type StorageBackend = 'sqlite' | 'postgres' | 'redis'

/** A read of the in-memory nonce store (absent with Redis: Redis is watched with Redis' own tools). */
export interface NonceStoreGauge {
  size(): number
  capacity: number
}

// Latchkey answers in milliseconds: the buckets are finer than prom-client's defaults at the low end.
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]
const STORAGE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]
// Around the default window of 300 s, so drift towards the limit shows before requests fail.
const SKEW_BUCKETS = [1, 5, 15, 30, 60, 120, 180, 240, 270, 300, 600, 3600]

/** One route pattern's answers, counted by method and status and timed by method. */
export interface HttpRouteRecorder {
  record(method: string, status: number, seconds: number): void
}

/**
 * A route's series by method and status, found on first use and then by two Map reads with no key
 * built: a route has a few methods, and its statuses are the service's own.
 */
class HttpRouteSeries implements HttpRouteRecorder {
  private readonly byMethod = new Map<string, { duration: HistogramSeries; byStatus: Map<number, CounterSeries> }>()

  constructor(
    private readonly durationOf: (method: string) => HistogramSeries,
    private readonly countOf: (method: string, status: number) => CounterSeries,
  ) {}

  record(method: string, status: number, seconds: number): void {
    let series = this.byMethod.get(method)
    if (!series) this.byMethod.set(method, (series = { duration: this.durationOf(method), byStatus: new Map() }))
    let count = series.byStatus.get(status)
    if (!count) series.byStatus.set(status, (count = this.countOf(method, status)))
    count.inc()
    series.duration.observe(seconds)
  }
}

export interface Metrics {
  registry: Registry
  /** The domain's events, counted. */
  observer: DomainObserver
  /** The recorder of one route pattern's answers, made once per route: a request costs it no label work. */
  httpRoute(route: string): HttpRouteRecorder
  /** The series of one storage operation (`store.method`), found once by the caller that times it. */
  storageSeries(backend: StorageBackend, operation: string): HistogramSeries
  /** Reports the memory nonce store's fill at each scrape. */
  watchNonceStore(store: NonceStoreGauge): void
  /** This process's metrics in the Prometheus text format. */
  scrape(): Promise<string>
}

export function createMetrics(): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  // The counters a request updates count in series of their own, added to the counter at each scrape.
  const countedCounter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => {
    const counter: Counter<L> = new Counter<L>({ name, help, labelNames, registers: [registry], collect: () => table.flush() })
    const table = new CounterSeriesTable(counter, labelNames)
    return table
  }
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] })

  const httpRequests = countedCounter('latchkey_http_requests_total', 'HTTP requests answered, by route pattern, method and status.', ['route', 'method', 'status'])
  const httpDuration = new SeriesHistogram(
    registry,
    'latchkey_http_request_duration_seconds',
    'Time from the request arriving to the answer being sent, by route pattern and method.',
    ['route', 'method'],
    HTTP_BUCKETS,
  )
  const oauth1 = countedCounter('latchkey_oauth1_verifications_total', 'OAuth 1.0a signed requests checked, by endpoint and result.', ['endpoint', 'result'])
  const bearer = countedCounter('latchkey_bearer_verifications_total', 'Bearer tokens checked, by result.', ['result'])
  const issued = counter('latchkey_tokens_issued_total', 'Tokens handed out, by kind.', ['kind'])
  const invalidated = counter('latchkey_tokens_invalidated_total', 'Tokens invalidated, by kind and reason.', ['kind', 'reason'])
  const rateLimited = counter('latchkey_rate_limited_total', 'Requests refused by a rate limit, by resource and whose budget ran out.', ['resource', 'subject'])
  const signIns = counter('latchkey_sign_in_attempts_total', 'Sign-ins on the consent pages, by result.', ['result'])
  const cacheLookups = countedCounter(
    'latchkey_validity_cache_lookups_total',
    'Lookups of verified requests, by who answered: the validity cache (hit), the database (miss), or the database because the cache could not tell (bypass).',
    ['result'],
  )
  const lostFailures = counter('latchkey_signature_failures_lost_total', "Refused signed requests that did not reach their app's failure log, by reason.", ['reason'])
  const storage = new SeriesHistogram(
    registry,
    'latchkey_storage_operation_duration_seconds',
    'Time of each storage call, by backend and operation (store.method).',
    ['backend', 'operation'],
    STORAGE_BUCKETS,
  )
  const skew = new SeriesHistogram(registry, 'latchkey_clock_skew_seconds', 'Distance between oauth_timestamp and the server clock, for accepted and refused requests.', [], SKEW_BUCKETS).series([])
  // Series whose label values are known in advance start at 0, so a rate() sees their first event.
  for (const result of ['ok', 'invalid_token', 'malformed']) bearer.series([result])
  for (const kind of ['request_token', 'access_token', 'bearer_token']) issued.inc({ kind }, 0)
  for (const result of ['ok', 'wrong_password', 'refused', 'throttled']) signIns.inc({ result }, 0)
  for (const reason of ['dropped', 'write_failed']) lostFailures.inc({ reason }, 0)
  for (const result of ['hit', 'miss', 'bypass']) cacheLookups.series([result])

  const observer: DomainObserver = {
    oauth1Verification: (endpoint, result) => oauth1.series([endpoint, result]).inc(),
    bearerVerification: (result) => bearer.series([result]).inc(),
    clockSkew: (seconds) => skew.observe(seconds),
    tokenIssued: (kind) => issued.inc({ kind }),
    tokenInvalidated: (kind, reason) => invalidated.inc({ kind, reason }),
    rateLimited: (resource, subject) => rateLimited.inc({ resource, subject }),
    signIn: (result) => signIns.inc({ result }),
    signatureFailureLost: (reason) => lostFailures.inc({ reason }),
    validityCacheLookup: (result) => cacheLookups.series([result]).inc(),
  }

  return {
    registry,
    observer,
    httpRoute(route) {
      return new HttpRouteSeries(
        (method) => httpDuration.series([route, method]),
        (method, status) => httpRequests.series([route, method, String(status)]),
      )
    },
    storageSeries: (backend, operation) => storage.series([backend, operation]),
    watchNonceStore(store) {
      new Gauge({
        name: 'latchkey_nonce_store_entries',
        help: 'Nonces held by the in-memory nonce store (expired ones included until swept).',
        registers: [registry],
        collect() {
          this.set(store.size())
        },
      })
      new Gauge({ name: 'latchkey_nonce_store_capacity', help: 'Nonces the in-memory nonce store holds before it refuses (503).', registers: [registry] }).set(
        store.capacity,
      )
    },
    scrape: () => registry.metrics(),
  }
}
