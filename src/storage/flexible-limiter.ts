import { RateLimiterRes } from 'rate-limiter-flexible'
import type { LimitState, Limiter } from './types.ts'

/** What we use of a rate-limiter-flexible limiter (memory or Redis). */
export interface FlexibleLimiter {
  consume(key: string): Promise<RateLimiterRes>
  get(key: string): Promise<RateLimiterRes | null>
  delete(key: string): Promise<boolean>
  reward(key: string, points: number): Promise<RateLimiterRes>
}

/** The adapter from rate-limiter-flexible (memory or Redis) to our Limiter. */
export function wrapLimiter(limiter: FlexibleLimiter, limit: number, windowSeconds: number): Limiter {
  // The clock is read before the call, so a window's end (and start) is never placed later than it
  // is: the sign-in throttle compares an unlock's time with the start of the block it may clear.
  const state = (startedMs: number, res: RateLimiterRes | null, isAllowed: boolean): LimitState => ({
    isAllowed,
    limit,
    remaining: res ? Math.max(0, res.remainingPoints) : limit,
    resetAtMs: startedMs + (res ? res.msBeforeNext : windowSeconds * 1000),
  })
  return {
    async hit(key) {
      const startedMs = Date.now()
      try {
        return state(startedMs, await limiter.consume(key), true)
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return state(startedMs, rejection, false)
        throw rejection
      }
    },
    async peek(key) {
      const startedMs = Date.now()
      const res = await limiter.get(key)
      return state(startedMs, res, res === null || res.consumedPoints < limit)
    },
    async reset(key) {
      await limiter.delete(key)
    },
    async refund(key) {
      await limiter.reward(key, 1)
    },
  }
}
