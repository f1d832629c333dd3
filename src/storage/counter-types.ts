// The contracts of what counts in memory or in Redis, never in the database: the nonce store and
// the limiters (src/storage/memory/, src/storage/redis/). types.ts states the database's stores.

/** What makes a signed request unique (RFC 5849 §3.3): the nonce with its timestamp, consumer key and token. */
export interface NonceUse {
  consumerKey: string
  token: string | undefined
  nonce: string
  timestampSeconds: number
}

/**
 * fresh: remembered now; replayed: already remembered; before-epoch: signed before the moment from
 * which the store knows it holds every nonce it was given (its epoch: the process start, or the
 * last time Redis lost its keys), so whether it is a replay cannot be known.
 */
export type NonceVerdict = 'fresh' | 'replayed' | 'before-epoch'

export interface NonceStore {
  /**
   * Records the use until expiresAtMs (a function of its timestamp, so a replay finds the same
   * entry). Rejects with StorageUnavailableError when it cannot remember it: the store is full, or
   * nearly full and this consumer key holds more than its share, or the backend is down or full.
   */
  remember(use: NonceUse, expiresAtMs: number, nowMs: number): Promise<NonceVerdict>
  /**
   * Resolves once the store's epoch is in a past second, so that a request stamped from now on
   * with a correct clock is never before it (timestamps are whole seconds). Called once at open.
   */
  settleEpoch(): Promise<void>
  /** Entries held at nowMs, where the store can say cheaply (in memory); undefined in Redis. */
  entryCount(nowMs: number): number | undefined
}

/** The state of one key of a limiter after a hit or a look. */
export interface LimitState {
  isAllowed: boolean
  limit: number
  remaining: number
  resetAtMs: number
}

/**
 * Fixed-window counting of hits per key, for rate limits, the bearer-token pace rule and the
 * sign-in throttle. In memory for one process; shared (Redis) when several instances run.
 */
export interface Limiter {
  /** Counts one hit; isAllowed is false once the window's limit is passed. */
  hit(key: string): Promise<LimitState>
  /** The state without counting; isAllowed says whether one more hit would be within the limit. */
  peek(key: string): Promise<LimitState>
  reset(key: string): Promise<void>
  /** Gives back one hit of the current window (a hit counted first, then found not to count). */
  refund(key: string): Promise<void>
}

export interface LimiterFactory {
  /** A limiter of `limit` hits per `windowSeconds`; `name` keeps the keys of different limiters apart. */
  create(name: string, limit: number, windowSeconds: number): Limiter
}
