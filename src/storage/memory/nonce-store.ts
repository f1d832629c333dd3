import type { NonceStore } from '../types.ts'
import { StorageUnavailableError } from '../errors.ts'

/**
 * The in-process nonce store of a single instance: O(1) insert and look-up, expiry by time window.
 * Entries are kept in insertion order, so expired ones are dropped from the front as time passes.
 * At `capacity` live nonces it refuses (503) rather than forget a nonce still inside its window.
 */
export function createMemoryNonceStore(options: { capacity?: number } = {}): NonceStore & { size(): number } {
  const capacity = options.capacity ?? 1_000_000
  const expiries = new Map<string, number>()

  function sweep(nowMs: number): void {
    for (const [key, expiresAtMs] of expiries) {
      if (expiresAtMs > nowMs) break
      expiries.delete(key)
    }
  }

  return {
    async remember(consumerKey, nonce, windowSeconds, nowMs) {
      sweep(nowMs)
      // The length makes the split unambiguous whatever characters the two hold.
      const key = `${consumerKey.length}:${consumerKey}:${nonce}`
      const existing = expiries.get(key)
      if (existing !== undefined && existing > nowMs) return false
      if (expiries.size >= capacity) throw new StorageUnavailableError('nonce store is full')
      expiries.delete(key)
      expiries.set(key, nowMs + windowSeconds * 1000)
      return true
    },
    size: () => expiries.size,
  }
}
