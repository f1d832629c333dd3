import { RateLimiterMemory } from 'rate-limiter-flexible'
import { wrapLimiter } from '../flexible-limiter.ts'
import type { LimiterFactory } from '../types.ts'

/** Limiters of one process, on rate-limiter-flexible's in-memory fixed windows. */
export function createMemoryLimiterFactory(): LimiterFactory {
  return {
    create(name, limit, windowSeconds) {
      const limiter = new RateLimiterMemory({ keyPrefix: name, points: limit, duration: windowSeconds })
      return wrapLimiter(limiter, { name, limit, windowSeconds })
    },
  }
}
