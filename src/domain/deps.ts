import type { Limiter, StorageRuntime, Stores } from '../storage/types.ts'
import type { Clock } from './clock.ts'
import type { RateLimitedResource, ServiceLimit } from './rate-limit-table.ts'
import type { DomainObserver } from './observe.ts'
import type { SignatureFailureLog } from './console/signature-failures.ts'
import type { WebhookClient } from './revocations/webhook-client.ts'
import type { HandOutTally } from './oauth2/hand-out-tally.ts'

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
  /** A revocation event not delivered this long after it happened is marked failed; delivered ones are deleted after it. */
  revocationRetentionHours: number
  /** One webhook delivery or CRC challenge may take this long. */
  webhookTimeoutSeconds: number
}

/** Every limiter, made once by the composition root from the limits of rate-limit-table.ts. */
export interface DomainLimiters {
  /** One limiter per rate-limited endpoint, keyed by resource. */
  endpoints: ReadonlyMap<RateLimitedResource, Limiter>
  /** One limiter per limit of SERVICE_LIMITS (the admin API's, the console's). */
  service: Readonly<Record<ServiceLimit, Limiter>>
}

/** What reads the endpoints' limits only (rate_limit_status, the console's usage). */
export type EndpointLimits = { limiters: Pick<DomainLimiters, 'endpoints'> }

export interface DomainDeps {
  stores: Stores
  /** The storage's runtime (limiters, derived secrets, health, shutdown): for the edges, never a use case. */
  runtime: StorageRuntime
  clock: Clock
  newId: () => string
  settings: DomainSettings
  limiters: DomainLimiters
  /** Told of outcomes (verifications, tokens, limits, sign-ins) for the metrics; none in the CLI. */
  observe?: DomainObserver
  /** Outbound HTTP to webhook endpoints (the revocation push): made by the composition root. */
  webhookClient?: WebhookClient
  /** Each app's recent refused signed requests, for its developer (the console's diagnostics). */
  signatureFailures?: SignatureFailureLog
  /** The repeats of POST /oauth2/token, counted into one audit row per app per minute. */
  handOuts: HandOutTally
}
