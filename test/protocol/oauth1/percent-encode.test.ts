import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { percentDecode, percentEncode } from '../../../src/protocol/oauth1/percent-encode.ts'
import { propertyRuns } from '../../helpers/property-runs.ts'
import { anyString } from '../../helpers/any-string.ts'
import { detailOf215, is215 } from '../../helpers/bad-auth-data.ts'


describe('percentEncode (RFC 5849 §3.6)', () => {
  test('returns a string of unreserved characters unchanged', () => {
    const unreserved = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'
    assert.equal(percentEncode(unreserved), unreserved)
    assert.equal(percentEncode(''), '')
  })

  test('escapes every other ASCII character as %XX with upper-case hex', () => {
    for (let code = 0; code < 128; code++) {
      const char = String.fromCharCode(code)
      const unreserved = /[A-Za-z0-9\-._~]/.test(char)
      const expected = unreserved ? char : `%${code.toString(16).toUpperCase().padStart(2, '0')}`
      assert.equal(percentEncode(char), expected, `code ${code}`)
    }
  })

  test('escapes the five characters encodeURIComponent leaves alone', () => {
    assert.equal(percentEncode("a b!*'()"), 'a%20b%21%2A%27%28%29')
  })

  test('encodes non-ASCII text as UTF-8 octets', () => {
    assert.equal(percentEncode('é'), '%C3%A9')
    assert.equal(percentEncode('☃'), '%E2%98%83')
    assert.equal(percentEncode('😀'), '%F0%9F%98%80')
  })

  test('rejects a lone surrogate, which has no UTF-8 form, with 215', () => {
    assert.throws(() => percentEncode('a\uD800b'), is215)
  })

  test('produces only unreserved characters and upper-case escapes, and decodes back', () => {
    fc.assert(
      fc.property(anyString(), (value) => {
        const encoded = percentEncode(value)
        assert.match(encoded, /^(?:[A-Za-z0-9\-._~]|%[0-9A-F]{2})*$/)
        assert.equal(percentDecode(encoded), value)
      }),
      { numRuns: propertyRuns(500) },
    )
  })
})

describe('percentDecode', () => {
  test('accepts upper- and lower-case hex', () => {
    assert.equal(percentDecode('%C3%A9%c3%a9'), 'éé')
  })

  test('keeps + as a plus sign unless asked for form decoding', () => {
    assert.equal(percentDecode('a+b%2B'), 'a+b+')
    assert.equal(percentDecode('a+b%2B', { plusAsSpace: true }), 'a b+')
  })

  test('keeps raw characters that should have been escaped', () => {
    assert.equal(percentDecode('a,b[]é '), 'a,b[]é ')
  })

  test('rejects malformed escapes with 215', () => {
    for (const bad of ['%G0', '%5', '%', 'abc%', '%5H', '%%20', 'a%2']) {
      assert.throws(() => percentDecode(bad), is215, bad)
    }
  })

  test('rejects octets that are not UTF-8 with 215', () => {
    // lone continuation, truncated sequence, overlong '/', encoded surrogate, out of range
    for (const bad of ['%80', '%FF', '%C3', '%C3%28', '%C0%AF', '%ED%A0%80', '%F4%90%80%80']) {
      assert.throws(() => percentDecode(bad), is215, bad)
    }
  })
})

// The client gets a plain 215; the operator's log line (the error's detail) says what was wrong.
describe('what the operator log says of a value that cannot be encoded or decoded', () => {
  const detailOf = detailOf215

  test('a lone surrogate is not well-formed Unicode', () => {
    assert.equal(detailOf(() => percentEncode('a\uD800b')), 'value is not well-formed Unicode')
  })

  test('a % without two hex digits after it is a malformed escape; well-formed escapes of bytes that are not UTF-8 are said to be so', () => {
    for (const text of ['%', '%4', '%AZ', 'a%zz', '%E2%82']) assert.equal(detailOf(() => percentDecode(text)), text === '%E2%82' ? 'percent-escapes are not UTF-8' : 'malformed percent-escape', text)
    assert.equal(detailOf(() => percentDecode('%FF')), 'percent-escapes are not UTF-8')
  })
})
