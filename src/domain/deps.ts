import type { Limiter, Stores } from '../storage/types.ts'
import type { Clock } from './clock.ts'

/** The settings the domain reads: a narrow slice of the config, handed down by the composition root. */
export interface DomainSettings {
  requestTokenTtlSeconds: number
  timestampSkewSeconds: number
  bearerTokenCallsPerWindow: number
  rateLimitWindowSeconds: number
  signInMaxFailures: number
  signInWindowSeconds: number
}

export interface DomainDeps {
  stores: Stores
  clock: Clock
  newId: () => string
  settings: DomainSettings
  limiters: {
    /** POST /oauth2/token calls per app per window (403 code 99 past it). */
    bearerTokenPace: Limiter
  }
}
