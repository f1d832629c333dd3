import { StorageUnavailableError } from './errors.ts'

/**
 * How a nonce store keeps one app from taking every other app's room, the same on every backend:
 * past `nearFull` of the capacity, an app that already holds an equal share of it (nearFull ×
 * capacity ÷ the apps holding nonces) is refused; at the capacity, every new nonce is. The Redis
 * store's script applies the same two comparisons (src/storage/redis/nonce-store.ts).
 */
export interface NonceBudget {
  /** Nonces held before every new one is refused. */
  capacity: number
  /** The fraction of the capacity past which an app over its share is refused. */
  nearFull: number
}

/**
 * Enough for the timestamp window (300 s + the 30 s margin + one 10 s bucket) at 35,000 signed
 * requests/s, the most one process serves, with the 10 % headroom kept for other apps on top:
 * 340 × 35,000 = 11.9 M < 0.9 × 14 M. At about 11 bytes an entry, about 160 MB when full.
 */
export const DEFAULT_NONCE_CAPACITY = 14_000_000

export const DEFAULT_NONCE_NEAR_FULL = 0.9

export type NonceAdmission = 'admitted' | 'full' | 'over-share'

/** Whether a new nonce of an app holding `held` may be stored, with `total` held by `apps` apps. */
export function admitNonce(budget: NonceBudget, total: number, held: number, apps: number): NonceAdmission {
  if (total >= budget.capacity) return 'full'
  const nearFull = budget.capacity * budget.nearFull
  if (total >= nearFull && held * apps >= nearFull) return 'over-share'
  return 'admitted'
}

/** The 503 a refused nonce gets; the message is for the operator's log. */
export function nonceRefusal(admission: Exclude<NonceAdmission, 'admitted'>, consumerKey: string, held: number, total: number): StorageUnavailableError {
  return admission === 'full'
    ? new StorageUnavailableError(`nonce store full: ${total} nonces held`)
    : new StorageUnavailableError(`nonce store nearly full: consumer key ${consumerKey} holds ${held} of ${total} nonces, its share or more`)
}
