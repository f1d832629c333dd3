import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const DIGITS = '0123456789'

function checkLength(length: number): void {
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`bad length: ${length}`)
}

// Rejection sampling: a byte is used only below the largest multiple of the alphabet size, so
// every character is equally likely (a plain `byte % size` would favour the first 256 % size).
function randomFrom(alphabet: string, length: number): string {
  checkLength(length)
  const limit = 256 - (256 % alphabet.length)
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length - out.length + 16)) {
      if (byte >= limit) continue
      out += alphabet[byte % alphabet.length]
      if (out.length === length) break
    }
  }
  return out
}

/** Random `[A-Za-z0-9]` string from the CSPRNG, unbiased: tokens and secrets (RFC 5849 §4.9). */
export function randomAlphanumeric(length: number): string {
  return randomFrom(ALPHANUMERIC, length)
}

/** Random decimal digits from the CSPRNG, unbiased: PIN verifiers for `oob` (RFC 5849 §2.2, §4.9). */
export function randomDigits(length: number): string {
  return randomFrom(DIGITS, length)
}

/** `bytes` random bytes as unpadded base64url (RFC 4648 §5), e.g. for request tokens. */
export function randomBase64Url(bytes: number): string {
  checkLength(bytes)
  return randomBytes(bytes).toString('base64url')
}

/**
 * Constant-time comparison of secrets whose length must not leak either: verifiers, client secrets,
 * CSRF tokens, PLAINTEXT signatures (which are the secrets themselves; RFC 5849 §3.4.4, §4.2;
 * checklist C46/C48). Both sides are hashed with SHA-256 first, so a length difference doesn't leak.
 * For a value of public length, such as an HMAC signature, `equalOfPublicLength` is cheaper.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  // UTF-16 code units, not UTF-8: UTF-8 would turn every lone surrogate into U+FFFD and equate them.
  const digestA = createHash('sha256').update(a, 'utf16le').digest()
  const digestB = createHash('sha256').update(b, 'utf16le').digest()
  return timingSafeEqual(digestA, digestB)
}

// The dummy-secret rule: a missing secret (an unknown consumer, client or token) is replaced by a
// random one as long as the secrets Latchkey makes, and the same work is done with it as with a real
// one; the decision is taken at the end, so the time an answer takes says nothing of what exists.
const DUMMY_SECRET_LENGTH = 50

/** The secret, or a random stand-in when there is none (see the rule above). */
export function secretOrDummy(secret: string | null | undefined): string {
  return secret ?? randomAlphanumeric(DUMMY_SECRET_LENGTH)
}

/** Whether `presented` is `secret`, compared in constant time, against a dummy when there is no secret. */
export function isSecret(presented: string, secret: string | null | undefined): boolean {
  const matches = constantTimeEqual(presented, secretOrDummy(secret))
  return matches && secret !== null && secret !== undefined
}

/**
 * Comparison in time independent of where the strings differ, for an expected value whose length is
 * public: an HMAC-SHA1 or HMAC-SHA256 signature in base64 is always 28 or 44 characters (RFC 5849
 * §3.4.2, §4.6), so a received value of another length is refused at once and reveals nothing.
 * Never use it where the length is a secret's: that is `constantTimeEqual`.
 */
export function equalOfPublicLength(expected: string, received: string): boolean {
  if (expected.length !== received.length) return false
  // UTF-16 code units, as in constantTimeEqual: equal lengths give buffers of equal size.
  return timingSafeEqual(Buffer.from(expected, 'utf16le'), Buffer.from(received, 'utf16le'))
}

/**
 * A new app-only bearer token (RFC 6749 §4.4.3, §10.10) shaped like Twitter's: 21 `A`, the base64
 * of 24 random bytes with `+`/`/` written as literal `%2B`/`%2F`, a literal `%3D`, then 60 random
 * alphanumerics. At least 116 characters, always with a `%` sequence (so not an RFC 6750 b64token).
 */
export function newBearerTokenValue(): string {
  const middle = randomBytes(24).toString('base64').replaceAll('+', '%2B').replaceAll('/', '%2F')
  return `${'A'.repeat(21)}${middle}%3D${randomAlphanumeric(60)}`
}
