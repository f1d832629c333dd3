import type { Limiter, StorageRuntime, Stores } from '../storage/types.ts'
import type { Clock } from './clock.ts'
import type { RateLimitedResource } from './rate-limit-table.ts'
import type { DomainObserver } from './observe.ts'
import type { SignatureFailureLog } from './console/signature-failures.ts'

/** The settings the domain reads: a narrow slice of the config, handed down by the composition root. */
export interface DomainSettings {
  requestTokenTtlSeconds: number
  timestampSkewSeconds: number
  rateLimitWindowSeconds: number
  /** Effective limit per endpoint resource, multiplier applied. */
  rateLimits: ReadonlyMap<RateLimitedResource, number>
  signInMaxFailures: number
  signInWindowSeconds: number
  /** A browser session unused this long has ended. */
  sessionIdleTimeoutSeconds: number
  /** A browser session ends this long after sign-in. */
  sessionLifetimeSeconds: number
}

export interface DomainDeps {
  stores: Stores
  /** The storage's runtime (limiters, derived secrets, health, shutdown): for the edges, never a use case. */
  runtime: StorageRuntime
  clock: Clock
  newId: () => string
  settings: DomainSettings
  limiters: {
    /** One limiter per rate-limited endpoint, keyed by resource (see rate-limit-table.ts). */
    endpoints: ReadonlyMap<RateLimitedResource, Limiter>
  }
  /** Told of outcomes (verifications, tokens, limits, sign-ins) for the metrics; none in the CLI. */
  observe?: DomainObserver
  /** Each app's recent refused signed requests, for its developer (the console's diagnostics). */
  signatureFailures?: SignatureFailureLog
}
