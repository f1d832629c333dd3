import { createHash, randomBytes } from 'node:crypto'
import type { NonceStore, NonceUse } from '../types.ts'
import { HashSet64 } from './hash-set64.ts'
import { waitUntilSecondAfter } from '../epoch.ts'
import { admitNonce, DEFAULT_NONCE_CAPACITY, DEFAULT_NONCE_NEAR_FULL, nonceRefusal } from '../nonce-share.ts'

/** Entries expiring within the same 10 s are kept (and dropped) together. */
const BUCKET_MS = 10_000

/** The entries that expire within one BUCKET_MS, and how many of them each consumer key holds. */
interface Bucket {
  hashes: HashSet64
  perApp: Map<string, number>
}

export interface MemoryNonceStore extends NonceStore {
  /** The bytes of its tables (the memory it holds beyond a few small maps). */
  byteCount(): number
  /** Entries it holds before it refuses (503 code 130). */
  readonly capacity: number
  /** Forgets every nonce (the test mode's reset); the epoch stays. */
  clear(): void
}

/**
 * The in-process nonce store of a single instance. Each use is kept as a 64-bit keyed hash of
 * (consumer key, token, timestamp, nonce) in the time bucket of its expiry, which follows from the
 * timestamp (so a replay looks in one bucket); a bucket's tables are dropped whole once its last
 * entry has expired, which gives the memory back. A false match (a fresh request taken for a replay)
 * needs a 64-bit collision with an entry of its bucket: at most capacity / 2^64 ≈ 8·10⁻¹³ per
 * request when full. The key is random per process, so nobody can aim for a collision.
 *
 * The store knows every nonce remembered since it was created (its epoch), nothing from before:
 * an earlier timestamp gets `before-epoch`. When nearly full, a consumer key holding its share is
 * refused (src/storage/nonce-share.ts), so that one flooding app cannot take the others' room.
 */
export function createMemoryNonceStore(options: { capacity?: number; nearFull?: number; epochMs?: number } = {}): MemoryNonceStore {
  const capacity = options.capacity ?? DEFAULT_NONCE_CAPACITY
  const budget = { capacity, nearFull: options.nearFull ?? DEFAULT_NONCE_NEAR_FULL }
  const epochMs = options.epochMs ?? Date.now()
  const hashKey = randomBytes(16)
  const buckets = new Map<number, Bucket>()
  const perApp = new Map<string, number>()
  let size = 0
  let nextExpiryMs = Infinity

  function dropExpired(nowMs: number): void {
    if (nowMs < nextExpiryMs) return
    nextExpiryMs = Infinity
    for (const [id, bucket] of buckets) {
      const endMs = (id + 1) * BUCKET_MS
      if (endMs > nowMs) {
        nextExpiryMs = Math.min(nextExpiryMs, endMs)
        continue
      }
      buckets.delete(id)
      size -= bucket.hashes.size
      for (const [app, count] of bucket.perApp) {
        const left = perApp.get(app)! - count
        if (left === 0) perApp.delete(app)
        else perApp.set(app, left)
      }
    }
  }

  function admit(consumerKey: string): void {
    const held = perApp.get(consumerKey) ?? 0
    const admission = admitNonce(budget, size, held, perApp.size)
    if (admission !== 'admitted') throw nonceRefusal(admission, consumerKey, held, size)
  }

  function bucketFor(expiresAtMs: number): Bucket {
    const id = Math.floor(expiresAtMs / BUCKET_MS)
    let bucket = buckets.get(id)
    if (!bucket) {
      buckets.set(id, (bucket = { hashes: new HashSet64(), perApp: new Map() }))
      nextExpiryMs = Math.min(nextExpiryMs, (id + 1) * BUCKET_MS)
    }
    return bucket
  }

  function hashOf(use: NonceUse): [number, number] {
    const token = use.token ?? ''
    // The lengths make the split unambiguous whatever characters the parts hold.
    const text = `${use.consumerKey.length}:${use.consumerKey}:${token.length}:${token}:${use.timestampSeconds}:${use.nonce}`
    const digest = createHash('sha256').update(hashKey).update(text).digest()
    const hi = digest.readUInt32BE(0)
    const lo = digest.readUInt32BE(4)
    return hi === 0 && lo === 0 ? [0, 1] : [hi, lo]
  }

  return {
    clear() {
      buckets.clear()
      perApp.clear()
      size = 0
      nextExpiryMs = Infinity
    },
    async remember(use, expiresAtMs, nowMs) {
      if (use.timestampSeconds * 1000 < epochMs) return 'before-epoch'
      dropExpired(nowMs)
      const bucket = bucketFor(expiresAtMs)
      const [hi, lo] = hashOf(use)
      if (bucket.hashes.has(hi, lo)) return 'replayed'
      admit(use.consumerKey)
      bucket.hashes.add(hi, lo)
      bucket.perApp.set(use.consumerKey, (bucket.perApp.get(use.consumerKey) ?? 0) + 1)
      perApp.set(use.consumerKey, (perApp.get(use.consumerKey) ?? 0) + 1)
      size++
      return 'fresh'
    },
    settleEpoch: () => waitUntilSecondAfter(epochMs),
    entryCount(nowMs) {
      dropExpired(nowMs)
      return size
    },
    byteCount: () => [...buckets.values()].reduce((sum, bucket) => sum + bucket.hashes.bytes, 0),
    capacity,
  }
}
