import type { Redis } from 'ioredis'
import type { NonceStore } from '../types.ts'
import { toStorageError } from '../unavailable.ts'

/**
 * The nonce store shared by every instance: one `SET key 1 PX window NX` per request, atomic, O(1).
 * A nonce is fresh when the key did not exist; Redis forgets it by itself when its window has
 * passed, measured on Redis' clock from the first use (the caller's clock is not needed).
 * Keys are `<prefix><length of consumer key>:<consumer key>:<nonce>`: the length makes the split
 * unambiguous whatever characters a nonce holds.
 */
export function createRedisNonceStore(client: Redis, keyPrefix: string): NonceStore {
  return {
    async remember(consumerKey, nonce, windowSeconds) {
      const key = `${keyPrefix}${consumerKey.length}:${consumerKey}:${nonce}`
      const windowMs = Math.max(1, Math.round(windowSeconds * 1000))
      try {
        return (await client.set(key, '1', 'PX', windowMs, 'NX')) === 'OK'
      } catch (error) {
        throw toStorageError(error, 'Redis')
      }
    },
  }
}
