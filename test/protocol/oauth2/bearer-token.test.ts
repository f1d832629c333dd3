import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { canonicalBearerToken, parseBearerHeader } from '../../../src/protocol/oauth2/bearer-token.ts'
import { newBearerTokenValue } from '../../../src/protocol/secrets.ts'
import { propertyRuns } from '../../helpers/property-runs.ts'

/** The plain implementation, without the shortcut for tokens already in canonical form: the oracle. */
function referenceCanonical(value: string): string {
  let decoded = value
  for (let round = 0; round < 3 && /%[0-9A-Fa-f]{2}/.test(decoded); round++) {
    try {
      decoded = decodeURIComponent(decoded)
    } catch {
      return value
    }
  }
  return decoded.replaceAll('+', '%2B').replaceAll('/', '%2F').replaceAll('=', '%3D')
}

describe('parseBearerHeader (RFC 6750 §2.1)', () => {
  test('takes the token after the scheme, in any case, with spaces or tabs around it', () => {
    assert.equal(parseBearerHeader('Bearer abc'), 'abc')
    assert.equal(parseBearerHeader('bEaReR \t abc%2B \t'), 'abc%2B')
    assert.equal(parseBearerHeader(undefined), undefined)
    for (const other of ['Bearer', 'Bearer ', 'Bearerabc', 'Basic abc', ' Bearer abc', 'Bearer a b', 'Bearer abc\n', 'OAuth x="y"']) {
      assert.equal(parseBearerHeader(other), undefined, JSON.stringify(other))
    }
  })
})

describe('canonicalBearerToken', () => {
  test('returns a token as issued unchanged, and the same for its decoded and doubly encoded forms', () => {
    for (let i = 0; i < 200; i++) {
      const token = newBearerTokenValue()
      assert.equal(canonicalBearerToken(token), token)
      assert.equal(canonicalBearerToken(decodeURIComponent(token)), token)
      assert.equal(canonicalBearerToken(encodeURIComponent(token)), token)
      assert.equal(canonicalBearerToken(token.replaceAll('%2B', '%2b')), token)
    }
  })

  test('agrees with the plain implementation on any text with escapes, + / = and bad escapes', () => {
    const unit = fc.constantFrom(...'aZ09+/=% -', '%2B', '%2b', '%2F', '%3D', '%3d', '%25', '%252B', '%41', '%C3%A9', '%C3', '%G1', '%2', 'é')
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 16 }), (value) => {
        assert.equal(canonicalBearerToken(value), referenceCanonical(value), value)
      }),
      { numRuns: propertyRuns(3000) },
    )
  })

  test('edge cases of the canonical-form shortcut', () => {
    // A % at the very end, or an escape the shortcut does not know, goes the long way.
    for (const value of ['abc%', 'abc%2', 'abc%2B%', 'a%2Bb%41', 'a%3Db%2f', '%252B', '']) {
      assert.equal(canonicalBearerToken(value), referenceCanonical(value), value)
    }
    assert.equal(canonicalBearerToken('a+b/c=d'), 'a%2Bb%2Fc%3Dd')
    // Nothing but the three raw characters: nothing else for the shortcut to stop at.
    for (const [value, expected] of [['+', '%2B'], ['/', '%2F'], ['=', '%3D'], ['+/==', '%2B%2F%3D%3D']]) {
      assert.equal(canonicalBearerToken(value!), expected, value)
    }
    assert.equal(canonicalBearerToken('A'.repeat(116)), 'A'.repeat(116))
    // A lone % with one hex digit is no escape: nothing is decoded, and the raw + is still written as its escape.
    assert.equal(canonicalBearerToken('a+%2'), 'a%2B%2')
  })

  test('decodes an escape of any other character, even one that shares a digit with %2B, %2F or %3D', () => {
    // Each is one hex digit away from an escape a token as issued carries, or has one beside it.
    const cases = [['%4B', 'K'], ['%4F', 'O'], ['%4D', 'M'], ['%2D', '-'], ['%3B', ';'], ['2%4B', '2K'], ['3%4D', '3M'], ['a2%4F', 'a2O']]
    for (const [value, expected] of cases) {
      assert.equal(canonicalBearerToken(value!), expected, value)
      assert.equal(referenceCanonical(value!), expected, value)
    }
  })

  test('decodes at most three times', () => {
    assert.equal(canonicalBearerToken('%25252541'), '%41')
    assert.equal(canonicalBearerToken('%2525252541'), '%2541')
    assert.equal(canonicalBearerToken('%2525252B'), '%2B')
  })
})
