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

/** What a limiter counts: `limit` hits per `windowSeconds` per key, its keys kept apart from other limiters' by `name`. */
export interface LimitSpec {
  readonly name: string
  readonly limit: number
  readonly windowSeconds: number
}

/**
 * Fixed-window counting of hits per key, for rate limits, the bearer-token pace rule and the
 * sign-in throttle. In memory for one process; shared (Redis) when several instances run.
 */
export interface Limiter {
  readonly spec: LimitSpec
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

/** A value of the credentials' generation (types.ts' Generation): never the same for two states. */
export type GenerationValue = number | string

/** One budget a request may spend: a limiter and the key it counts. */
export interface Budget {
  limiter: Limiter
  subject: string
}

/** What a verified request spends, settled in one call: one Redis round trip where the counters live in Redis. */
export interface AdmissionRequest {
  /** The client address's budget of failures: the request is refused while it is spent; one that is admitted costs it nothing. */
  address?: Budget | undefined
  /** One hit of the caller's budget; past the limit the request is refused and the hit stays counted (as Limiter.hit). */
  charge?: Budget | undefined
  /** Remembered only once the charge passed (NonceStore.remember); a nonce that is not fresh gives the charge back. */
  nonce?: { use: NonceUse; expiresAtMs: number; nowMs: number } | undefined
  /** A lookup the request was verified with: the answer says whether it is still current (`lookupIsCurrent`). */
  lookedUp?: object | undefined
}

export interface Admission {
  /** The budget that refused the request: the address's (nothing was counted) or the caller's (its hit stays counted). */
  refusedBy?: 'address' | 'charge' | undefined
  /** The address's state, when it refused. */
  address?: LimitState | undefined
  /** The caller's state after the hit, when charged. */
  charge?: LimitState | undefined
  /** The nonce's verdict, when one was given and the budgets admitted the request. */
  verdict?: NonceVerdict | undefined
  /**
   * The credentials' generation, read in the same call where it lives with the counters (Redis);
   * undefined where the validity cache reads its own (SQLite) or there is none.
   */
  generation?: GenerationValue | undefined
  /**
   * False when `lookedUp` came from the validity cache at a generation that has moved since (a
   * credential may have ended): the caller looks its credentials up again and checks them anew.
   */
  lookupIsCurrent: boolean
}

/** Settles what a verified request spends (src/storage/admissions.ts, redis/admissions.ts). */
export interface AdmissionStore {
  admit(request: AdmissionRequest): Promise<Admission>
}
