import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import { challengeMethod, isCodeChallenge, isCodeVerifier, verifierMatches } from '../../../src/protocol/oauth2/pkce.ts'

// RFC 7636 Appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'

describe('PKCE (RFC 7636)', () => {
  test("S256: the RFC's own example verifies, and a verifier one character off does not", () => {
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_CHALLENGE, 'S256'), true)
    assert.equal(verifierMatches(`${RFC_VERIFIER.slice(0, -1)}V`, RFC_CHALLENGE, 'S256'), false)
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_CHALLENGE, 'plain'), false, 'an S256 challenge is not the verifier itself')
  })

  test('plain: the challenge is the verifier', () => {
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_VERIFIER, 'plain'), true)
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_VERIFIER.toLowerCase(), 'plain'), false)
  })

  test("verifiers of 43 to 256 unreserved characters (tweepy's 171 included), nothing shorter, longer or outside that alphabet", () => {
    const of = (n: number, c = 'a') => c.repeat(n)
    for (const ok of [of(43), of(128), of(171), of(256), `${of(40)}-._~`]) assert.equal(isCodeVerifier(ok), true, `${ok.length}`)
    for (const bad of [of(42), of(257), `${of(42)}+`, `${of(42)}/`, `${of(42)} `, `${of(42)}=`, `${of(42)}é`]) assert.equal(isCodeVerifier(bad), false, bad)
    const tweepyLike = of(171, 'Z')
    const challenge = createHash('sha256').update(tweepyLike).digest('base64url')
    assert.equal(verifierMatches(tweepyLike, challenge, 'S256'), true)
    assert.equal(verifierMatches(of(42), of(42), 'plain'), false, 'a malformed verifier never matches, even as plain')
  })

  test('challenges have the same alphabet and lengths', () => {
    assert.equal(isCodeChallenge(RFC_CHALLENGE), true)
    assert.equal(isCodeChallenge(`${RFC_CHALLENGE}=`), false, 'padding is not base64url without padding')
    assert.equal(isCodeChallenge('short'), false)
  })

  test('the method: S256 in any case (twitter-api-v2 sends s256), plain, absent meaning plain, nothing else', () => {
    assert.equal(challengeMethod('S256'), 'S256')
    assert.equal(challengeMethod('s256'), 'S256')
    assert.equal(challengeMethod('plain'), 'plain')
    assert.equal(challengeMethod(undefined), 'plain')
    for (const bad of ['', 'S512', 'PLAIN ', 'sha256']) assert.equal(challengeMethod(bad), undefined, bad)
  })

  test('a challenge of another length does not match (and does not throw)', () => {
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_CHALLENGE.slice(0, -1), 'S256'), false)
    assert.equal(verifierMatches(RFC_VERIFIER, `${RFC_VERIFIER}A`, 'plain'), false)
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_VERIFIER, 'plain'), true)
  })
})
