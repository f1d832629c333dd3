import type { NonceUse } from '../../src/storage/types.ts'

/** A nonce use stamped now (or at `timestampSeconds`), without a token unless given. */
export function nonceUse(consumerKey: string, nonce: string, options: { token?: string; timestampSeconds?: number } = {}): NonceUse {
  return { consumerKey, token: options.token, nonce, timestampSeconds: options.timestampSeconds ?? Math.floor(Date.now() / 1000) }
}

/** The expiry the verifier gives a use stamped at `timestampSeconds`, with a 300 s window (plus the 30 s margin). */
export const expiryOf = (use: NonceUse, windowSeconds = 300) => (use.timestampSeconds + windowSeconds + 30) * 1000
