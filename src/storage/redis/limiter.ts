import type { Redis } from 'ioredis'
import { limitStateOf } from '../flexible-limiter.ts'
import type { LimitSpec, LimiterFactory } from '../types.ts'
import { guardStore } from '../unavailable.ts'
import { FIXED_WINDOW_LUA, windowKey } from './fixed-window.ts'

type LimiterClient = Redis & {
  latchkeyHit(key: string, points: number, windowSeconds: number): Promise<[number, number]>
}

const HIT = `${FIXED_WINDOW_LUA}
return hit(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]))`

/**
 * Limiters shared by every instance: fixed windows in Redis (fixed-window.ts), one script per hit.
 * While Redis is down a call fails with StorageUnavailableError (503) at once rather than fall back
 * to private counters that would multiply the limit by the number of instances.
 */
export function createRedisLimiterFactory(client: Redis, keyPrefix: string): LimiterFactory {
  const redis = client as unknown as LimiterClient
  if (typeof (client as unknown as Partial<LimiterClient>).latchkeyHit !== 'function') redis.defineCommand('latchkeyHit', { numberOfKeys: 1, lua: HIT })
  return {
    create(name, limit, windowSeconds) {
      const spec: LimitSpec = { name, limit, windowSeconds }
      const keyOf = (subject: string) => windowKey(keyPrefix, spec, subject)
      const hit = async (subject: string, points: number) => {
        const startedMs = Date.now()
        const [count, msLeft] = await redis.latchkeyHit(keyOf(subject), points, windowSeconds)
        return limitStateOf(spec, startedMs, { count, msLeft }, count <= limit)
      }
      const limiter = {
        spec,
        hit: (subject: string) => hit(subject, 1),
        async peek(subject: string) {
          const startedMs = Date.now()
          const answers = (await redis.multi().get(keyOf(subject)).pttl(keyOf(subject)).exec()) ?? []
          const failed = answers.find(([error]) => error)
          if (failed) throw failed[0]
          const [[, count], [, msLeft]] = answers as [[null, string | null], [null, number]]
          const window = count === null ? null : { count: Number(count), msLeft }
          return limitStateOf(spec, startedMs, window, (window?.count ?? 0) < limit)
        },
        async reset(subject: string) {
          await redis.del(keyOf(subject))
        },
        async refund(subject: string) {
          await hit(subject, -1)
        },
      }
      return guardStore(limiter, 'Redis')
    },
  }
}
