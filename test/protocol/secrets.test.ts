import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  constantTimeEqual,
  isSecret,
  newBearerTokenValue,
  randomAlphanumeric,
  randomBase64Url,
  randomDigits,
  secretOrDummy,
} from '../../src/protocol/secrets.ts'

/** Pearson's chi-squared statistic of the character counts of `text` against a uniform alphabet. */
function chiSquared(text: string, alphabet: string): number {
  const counts = new Map<string, number>([...alphabet].map((c) => [c, 0]))
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1)
  const expected = text.length / alphabet.length
  let sum = 0
  for (const count of counts.values()) sum += (count - expected) ** 2 / expected
  return sum
}

describe('randomAlphanumeric', () => {
  test('returns the requested number of letters and digits', () => {
    for (const length of [0, 1, 7, 32, 41, 1000]) {
      const value = randomAlphanumeric(length)
      assert.equal(value.length, length)
      assert.match(value, /^[A-Za-z0-9]*$/)
    }
  })

  test('never repeats a 32-character value', () => {
    const values = new Set(Array.from({ length: 1000 }, () => randomAlphanumeric(32)))
    assert.equal(values.size, 1000)
  })

  test('uses every character about equally often (no modulo bias)', () => {
    // 61 degrees of freedom: 150 is far beyond chance (p < 1e-8); `byte % 62` bias scores in the thousands.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
    assert.ok(chiSquared(randomAlphanumeric(620_000), alphabet) < 150)
  })

  test('rejects a negative or fractional length', () => {
    assert.throws(() => randomAlphanumeric(-1), { name: 'RangeError', message: 'bad length: -1' }, 'the message names the length, for the developer who passed it')
    assert.throws(() => randomAlphanumeric(1.5), RangeError)
  })
})

describe('randomDigits', () => {
  test('returns the requested number of decimal digits', () => {
    for (const length of [0, 1, 7, 100]) {
      const value = randomDigits(length)
      assert.equal(value.length, length)
      assert.match(value, /^[0-9]*$/)
    }
  })

  test('uses every digit about equally often (no modulo bias)', () => {
    // 9 degrees of freedom: 60 is far beyond chance (p < 1e-9); `byte % 10` bias scores about 360 here.
    assert.ok(chiSquared(randomDigits(1_000_000), '0123456789') < 60)
  })
})

describe('randomBase64Url', () => {
  test('encodes the requested number of random bytes without padding', () => {
    for (const bytes of [0, 1, 20, 32]) {
      const value = randomBase64Url(bytes)
      assert.match(value, /^[A-Za-z0-9_-]*$/)
      assert.equal(value.length, Math.ceil((bytes * 4) / 3))
      assert.equal(Buffer.from(value, 'base64url').length, bytes)
    }
    assert.notEqual(randomBase64Url(20), randomBase64Url(20))
  })
})

describe('constantTimeEqual', () => {
  test('is true only for identical strings, whatever their lengths', () => {
    assert.equal(constantTimeEqual('abc', 'abc'), true)
    assert.equal(constantTimeEqual('', ''), true)
    assert.equal(constantTimeEqual('é😀', 'é😀'), true)
    assert.equal(constantTimeEqual('abc', 'abd'), false)
    assert.equal(constantTimeEqual('abc', 'abcd'), false)
    assert.equal(constantTimeEqual('', 'a'), false)
    assert.equal(constantTimeEqual('e\u0301', 'é'), false)
    assert.equal(constantTimeEqual('\uD800', '\uDFFF'), false)
  })
})

describe('the dummy-secret rule', () => {
  test('a missing secret is a fresh random stand-in as long as a real one; a present one is itself', () => {
    const [a, b] = [secretOrDummy(undefined), secretOrDummy(null)]
    assert.match(a, /^[A-Za-z0-9]{50}$/)
    assert.notEqual(a, b)
    assert.equal(secretOrDummy('s3cret'), 's3cret')
  })

  test('isSecret: only the secret itself matches, and nothing matches a missing one (the empty text neither)', () => {
    assert.equal(isSecret('s3cret', 's3cret'), true)
    assert.equal(isSecret('s3cret', 's3cre'), false)
    assert.equal(isSecret('', null), false)
    assert.equal(isSecret('', undefined), false)
  })
})

describe('newBearerTokenValue', () => {
  const SHAPE = /^A{21}((?:[A-Za-z0-9]|%2B|%2F){32})%3D[A-Za-z0-9]{60}$/

  test('looks like a Twitter bearer token: 21 A, escaped base64, a literal %3D, 60 alphanumerics', () => {
    for (let i = 0; i < 200; i++) {
      const token = newBearerTokenValue()
      const match = SHAPE.exec(token)
      assert.ok(match, token)
      assert.ok(token.length >= 116, token)
      assert.ok(token.includes('%3D'))
      const middle = (match[1] ?? '').replaceAll('%2B', '+').replaceAll('%2F', '/')
      assert.equal(Buffer.from(middle, 'base64').length, 24)
    }
  })

  test('writes + and / of the base64 part as %2B and %2F', () => {
    const tokens = Array.from({ length: 200 }, () => newBearerTokenValue()).join('')
    assert.ok(tokens.includes('%2B') && tokens.includes('%2F'))
    assert.ok(!tokens.includes('+') && !tokens.includes('/') && !tokens.includes('='))
  })

  test('never repeats', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newBearerTokenValue()))
    assert.equal(tokens.size, 1000)
  })
})
