import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * PKCE, RFC 7636. The verifier is 43 to 128 unreserved characters (§4.1); X's clients go further
 * (tweepy sends 171, an oauthlib quirk), so up to 256 are taken. A challenge is the verifier itself
 * (`plain`) or its SHA-256 in unpadded base64url (`S256`, §4.2; twitter-api-v2 spells it `s256`).
 */

export type ChallengeMethod = 'S256' | 'plain'

const VERIFIER = /^[A-Za-z0-9\-._~]{43,256}$/
/** A challenge has a verifier's alphabet and length (S256's is always 43 characters). */
const CHALLENGE = VERIFIER

export const isCodeVerifier = (value: string): boolean => VERIFIER.test(value)

export const isCodeChallenge = (value: string): boolean => CHALLENGE.test(value)

/** The method a `code_challenge_method` names (§4.3: absent means plain), or undefined when none. */
export function challengeMethod(value: string | undefined): ChallengeMethod | undefined {
  if (value === undefined || value === 'plain') return 'plain'
  if (value.toUpperCase() === 'S256') return 'S256'
  return undefined
}

/** §4.6: whether `verifier` answers `challenge`, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string, method: ChallengeMethod): boolean {
  if (!isCodeVerifier(verifier)) return false
  const derived = method === 'S256' ? createHash('sha256').update(verifier, 'ascii').digest('base64url') : verifier
  const a = Buffer.from(derived, 'ascii')
  const b = Buffer.from(challenge, 'ascii')
  return a.length === b.length && timingSafeEqual(a, b)
}
