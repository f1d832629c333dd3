import type { Redis } from 'ioredis'
import { RateLimiterRedis } from 'rate-limiter-flexible'
import { wrapLimiter } from '../flexible-limiter.ts'
import type { LimiterFactory } from '../types.ts'
import { guardStore } from '../unavailable.ts'

/**
 * Limiters shared by every instance: rate-limiter-flexible's fixed windows in Redis (one Lua call
 * per hit). While Redis is down a hit fails with StorageUnavailableError (503) at once rather than
 * fall back to private counters that would multiply the limit by the number of instances.
 */
export function createRedisLimiterFactory(client: Redis, keyPrefix: string): LimiterFactory {
  return {
    create(name, limit, windowSeconds) {
      const limiter = new RateLimiterRedis({
        storeClient: client,
        keyPrefix: `${keyPrefix}${name}`,
        points: limit,
        duration: windowSeconds,
        rejectIfRedisNotReady: true,
      })
      return guardStore(wrapLimiter(limiter, limit, windowSeconds), 'Redis')
    },
  }
}
