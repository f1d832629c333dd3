import type { Redis } from 'ioredis'
import type { NonceStore } from '../types.ts'
import { toStorageError } from '../unavailable.ts'

/**
 * One round trip, atomic: a nonce is a replay while the expiry stored under its key is later than
 * the caller's clock; otherwise it is (re)recorded with a TTL of its window, so Redis forgets it by
 * itself. The window is measured on the caller's clock, as in the memory store, so every adapter
 * gives the same answers (a key whose window has passed but whose TTL has not yet run out is fresh).
 */
const REMEMBER = `
local expiresAtMs = tonumber(redis.call('GET', KEYS[1]))
if expiresAtMs and expiresAtMs > tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`

type WithRemember = Redis & {
  latchkeyRememberNonce(key: string, nowMs: string, expiresAtMs: string, windowMs: string): Promise<number>
}

/**
 * The nonce store shared by every instance. Keys are `<prefix><length of consumer key>:<consumer
 * key>:<nonce>`: the length makes the split unambiguous whatever characters a nonce holds.
 */
export function createRedisNonceStore(client: Redis, keyPrefix: string): NonceStore {
  client.defineCommand('latchkeyRememberNonce', { numberOfKeys: 1, lua: REMEMBER })
  const redis = client as WithRemember
  return {
    async remember(consumerKey, nonce, windowSeconds, nowMs) {
      const key = `${keyPrefix}${consumerKey.length}:${consumerKey}:${nonce}`
      const windowMs = Math.max(1, Math.round(windowSeconds * 1000))
      try {
        const fresh = await redis.latchkeyRememberNonce(key, String(nowMs), String(nowMs + windowMs), String(windowMs))
        return fresh === 1
      } catch (error) {
        throw toStorageError(error, 'Redis')
      }
    },
  }
}
