import type { NonceStore } from '../types.ts'
import { StorageUnavailableError } from '../errors.ts'

/** A store at capacity looks for expired nonces among all of its entries at most this often. */
const FULL_SWEEP_INTERVAL_MS = 1000

/**
 * The in-process nonce store of a single instance: O(1) insert and look-up, expiry by time window.
 * Entries are kept in insertion order and expired ones are dropped from the front as time passes.
 * Windows differ (a nonce lives until its request stops being timely), so an expired entry can sit
 * behind a longer-lived one; before refusing at capacity the store drops every expired entry, at
 * most once a second so that a store full of live nonces does not scan on every request. At
 * `capacity` live nonces it refuses (503) rather than forget a nonce still inside its window.
 */
export function createMemoryNonceStore(options: { capacity?: number } = {}): NonceStore & { size(): number; capacity: number } {
  const capacity = options.capacity ?? 1_000_000
  const expiries = new Map<string, number>()
  let lastFullSweepMs = -Infinity

  function sweepFront(nowMs: number): void {
    for (const [key, expiresAtMs] of expiries) {
      if (expiresAtMs > nowMs) break
      expiries.delete(key)
    }
  }

  function sweepAll(nowMs: number): void {
    if (Math.abs(nowMs - lastFullSweepMs) < FULL_SWEEP_INTERVAL_MS) return
    lastFullSweepMs = nowMs
    for (const [key, expiresAtMs] of expiries) if (expiresAtMs <= nowMs) expiries.delete(key)
  }

  return {
    async remember(consumerKey, nonce, windowSeconds, nowMs) {
      sweepFront(nowMs)
      // The length makes the split unambiguous whatever characters the two hold.
      const key = `${consumerKey.length}:${consumerKey}:${nonce}`
      const existing = expiries.get(key)
      if (existing !== undefined && existing > nowMs) return false
      if (expiries.size >= capacity) sweepAll(nowMs)
      if (expiries.size >= capacity) throw new StorageUnavailableError('nonce store is full')
      expiries.delete(key)
      expiries.set(key, nowMs + windowSeconds * 1000)
      return true
    },
    size: () => expiries.size,
    capacity,
  }
}
