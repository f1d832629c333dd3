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
  const state = (res: RateLimiterRes | null, isAllowed: boolean): LimitState => ({
    isAllowed,
    limit,
    remaining: res ? Math.max(0, res.remainingPoints) : limit,
    resetAtMs: Date.now() + (res ? res.msBeforeNext : windowSeconds * 1000),
  })
  return {
    async hit(key) {
      try {
        return state(await limiter.consume(key), true)
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return state(rejection, false)
        throw rejection
      }
    },
    async peek(key) {
      const res = await limiter.get(key)
      return state(res, res === null || res.consumedPoints < limit)
    },
    async reset(key) {
      await limiter.delete(key)
    },
    async refund(key) {
      await limiter.reward(key, 1)
    },
  }
}
