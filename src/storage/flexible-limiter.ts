import { RateLimiterRes } from 'rate-limiter-flexible'
import type { LimitSpec, LimitState, Limiter } from './types.ts'

/** What we use of a rate-limiter-flexible limiter (in memory). */
export interface FlexibleLimiter {
  consume(key: string): Promise<RateLimiterRes>
  get(key: string): Promise<RateLimiterRes | null>
  delete(key: string): Promise<boolean>
  reward(key: string, points: number): Promise<RateLimiterRes>
}

/**
 * A key's state from its window's count and the time left in it (none: no window open). The clock is
 * read before the call, so a window's end (and start) is never placed later than it is: the sign-in
 * throttle compares an unlock's time with the start of the block it may clear.
 */
export function limitStateOf(spec: LimitSpec, startedMs: number, window: { count: number; msLeft: number } | null, isAllowed: boolean): LimitState {
  return {
    isAllowed,
    limit: spec.limit,
    remaining: window ? Math.max(0, spec.limit - window.count) : spec.limit,
    resetAtMs: startedMs + (window && window.msLeft >= 0 ? window.msLeft : spec.windowSeconds * 1000),
  }
}

/** The adapter from rate-limiter-flexible's in-memory limiter to our Limiter. */
export function wrapLimiter(limiter: FlexibleLimiter, spec: LimitSpec): Limiter {
  const windowOf = (res: RateLimiterRes | null) => res && { count: res.consumedPoints, msLeft: res.msBeforeNext }
  return {
    spec,
    async hit(key) {
      const startedMs = Date.now()
      try {
        return limitStateOf(spec, startedMs, windowOf(await limiter.consume(key)), true)
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return limitStateOf(spec, startedMs, windowOf(rejection), false)
        throw rejection
      }
    },
    async peek(key) {
      const startedMs = Date.now()
      const res = await limiter.get(key)
      return limitStateOf(spec, startedMs, windowOf(res), res === null || res.consumedPoints < spec.limit)
    },
    async reset(key) {
      await limiter.delete(key)
    },
    async refund(key) {
      await limiter.reward(key, 1)
    },
  }
}
