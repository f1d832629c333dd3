import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { buildOAuthHeader, parseOAuthHeader } from '../../../src/protocol/oauth1/auth-header.ts'
import { propertyRuns } from '../../helpers/property-runs.ts'
import { anyString } from '../../helpers/any-string.ts'
import { detailOf215, is215 } from '../../helpers/bad-auth-data.ts'


describe('parseOAuthHeader (RFC 5849 §3.5.1)', () => {
  test('returns undefined without a header or for another scheme', () => {
    assert.equal(parseOAuthHeader(undefined), undefined)
    assert.equal(parseOAuthHeader(''), undefined)
    assert.equal(parseOAuthHeader('Bearer AAAA%2FAAA%3DAAAA'), undefined)
    assert.equal(parseOAuthHeader('Basic eHZ6MWV2RlM0d0VFUFRHRUZQSEJvZzpzZWNyZXQ='), undefined)
    assert.equal(parseOAuthHeader('OAuthx oauth_token="a"'), undefined)
  })

  test('parses the RFC 5849 §1.2 header, dropping realm and decoding values', () => {
    const header =
      'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_signature_method="HMAC-SHA1", ' +
      'oauth_timestamp="137131200", oauth_nonce="wIjqoS", ' +
      'oauth_callback="http%3A%2F%2Fprinter.example.com%2Fready", oauth_signature="74KNZJeDHnMBp0EMJ9ZHt%2FXKycU%3D"'
    assert.deepEqual(parseOAuthHeader(header), [
      ['oauth_consumer_key', 'dpf43f3p2l4k3l03'],
      ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_timestamp', '137131200'],
      ['oauth_nonce', 'wIjqoS'],
      ['oauth_callback', 'http://printer.example.com/ready'],
      ['oauth_signature', '74KNZJeDHnMBp0EMJ9ZHt/XKycU='],
    ])
  })

  test('looks for the scheme only at the start of the header', () => {
    assert.equal(parseOAuthHeader('Bearer oauth'), undefined)
    assert.equal(parseOAuthHeader('Digest username="u", oauth realm="r"'), undefined)
  })

  test('ignores whitespace around the header', () => {
    assert.deepEqual(parseOAuthHeader(' \tOAuth oauth_token="t" '), [['oauth_token', 't']])
    assert.deepEqual(parseOAuthHeader('  OAuth'), [])
  })

  test('matches the scheme case-insensitively', () => {
    for (const scheme of ['oauth', 'OAUTH', 'OAuth', 'oAuTh']) {
      assert.deepEqual(parseOAuthHeader(`${scheme} oauth_token="t"`), [['oauth_token', 't']])
    }
  })

  test('accepts commas with or without spaces, and a space before the comma', () => {
    const expected = [
      ['oauth_nonce', 'n'],
      ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_version', '1.0'],
    ]
    for (const header of [
      'OAuth oauth_nonce="n",oauth_signature_method="HMAC-SHA1",oauth_version="1.0"',
      'OAuth oauth_nonce="n", oauth_signature_method="HMAC-SHA1", oauth_version="1.0"',
      'OAuth oauth_nonce="n" ,oauth_signature_method="HMAC-SHA1" , oauth_version="1.0"',
      'OAuth  oauth_nonce="n",\toauth_signature_method="HMAC-SHA1",   oauth_version="1.0" ',
      'OAuth oauth_nonce = "n", oauth_signature_method="HMAC-SHA1", oauth_version="1.0",',
    ]) {
      assert.deepEqual(parseOAuthHeader(header), expected, header)
    }
  })

  test('drops realm in any position and any case, without decoding its value', () => {
    const first = 'OAuth realm="http://sp.example.com/", oauth_token="t"'
    assert.deepEqual(parseOAuthHeader(first), [['oauth_token', 't']])
    assert.deepEqual(parseOAuthHeader('OAuth oauth_token="t", REALM="100%"'), [['oauth_token', 't']])
    assert.deepEqual(parseOAuthHeader('OAuth Realm=""'), [])
  })

  test('keeps an empty oauth_token as an empty string', () => {
    assert.deepEqual(parseOAuthHeader('OAuth oauth_consumer_key="k", oauth_token=""'), [
      ['oauth_consumer_key', 'k'],
      ['oauth_token', ''],
    ])
  })

  test('accepts unquoted values, empty ones included', () => {
    const header = 'OAuth oauth_nonce=abc, oauth_signature=a%2Fb%3D,oauth_token=,oauth_version=1.0'
    assert.deepEqual(parseOAuthHeader(header), [
      ['oauth_nonce', 'abc'],
      ['oauth_signature', 'a/b='],
      ['oauth_token', ''],
      ['oauth_version', '1.0'],
    ])
  })

  test('keeps the order the client used', () => {
    const header = 'OAuth oauth_version="1.0", oauth_consumer_key="k", oauth_nonce="n"'
    assert.deepEqual(
      parseOAuthHeader(header)?.map(([name]) => name),
      ['oauth_version', 'oauth_consumer_key', 'oauth_nonce'],
    )
  })

  test('returns an empty list for a bare scheme', () => {
    assert.deepEqual(parseOAuthHeader('OAuth'), [])
    assert.deepEqual(parseOAuthHeader('OAuth   '), [])
  })

  test('keeps + literal in header values (RFC 5849 §3.6 encoding, not form encoding)', () => {
    assert.deepEqual(parseOAuthHeader('OAuth oauth_signature="a+b"'), [['oauth_signature', 'a+b']])
  })

  test('rejects malformed headers with 215', () => {
    for (const header of [
      'OAuth oauth_token="abc',
      'OAuth oauth_token',
      'OAuth oauth_token, oauth_nonce="n"',
      'OAuth oauth_token="a" oauth_nonce="n"',
      'OAuth oauth_token="a"x, oauth_nonce="n"',
      'OAuth ="a"',
      'OAuth "garbage"',
      'OAuth oauth_token=a"b"',
      'OAuth oauth_token="%G0"',
      'OAuth oauth_tok%en="a"',
      'OAuth !!!',
    ]) {
      assert.throws(() => parseOAuthHeader(header), is215, header)
    }
  })

  test('rejects a name given twice with 215, even with the same value', () => {
    assert.throws(() => parseOAuthHeader('OAuth oauth_token="a", oauth_token="a"'), is215)
    assert.throws(() => parseOAuthHeader('OAuth oauth_token="a", oauth_token="b"'), is215)
    assert.throws(() => parseOAuthHeader('OAuth oauth_token="a", oauth%5Ftoken="b"'), is215)
  })
})

describe('buildOAuthHeader', () => {
  test('writes realm first and encodes names and values', () => {
    assert.equal(
      buildOAuthHeader(
        [
          ['oauth_callback', 'http://printer.example.com/ready'],
          ['oauth_token', ''],
        ],
        'Photos',
      ),
      'OAuth realm="Photos", oauth_callback="http%3A%2F%2Fprinter.example.com%2Fready", oauth_token=""',
    )
  })

  test('writes no realm when none is given, and the bare scheme for no parameters', () => {
    assert.equal(buildOAuthHeader([['oauth_token', 't']]), 'OAuth oauth_token="t"')
    assert.equal(buildOAuthHeader([]), 'OAuth')
    assert.equal(buildOAuthHeader([], 'Photos'), 'OAuth realm="Photos"')
    assert.equal(buildOAuthHeader([], ''), 'OAuth realm=""')
  })

  test('writes the realm as given, unencoded', () => {
    assert.equal(buildOAuthHeader([['a', 'b']], 'http://sp.example.com/ 100%'), 'OAuth realm="http://sp.example.com/ 100%", a="b"')
  })

  test('refuses a realm that holds " or \\, which it cannot write unescaped', () => {
    for (const realm of ['a"b', '"', 'a\\b', '\\']) {
      assert.throws(() => buildOAuthHeader([['oauth_token', 't']], realm), { name: 'RangeError', message: 'realm must not contain " or \\' }, realm)
    }
  })

  test('round-trips through parseOAuthHeader', () => {
    const name = anyString({ minLength: 1 }).filter((n) => n.toLowerCase() !== 'realm')
    const pairs = fc.uniqueArray(fc.tuple(name, anyString()), { selector: ([n]) => n })
    const realm = fc.option(fc.string().filter((r) => !/["\\]/.test(r)), { nil: undefined })
    fc.assert(
      fc.property(pairs, realm, (params, realmValue) => {
        assert.deepEqual(parseOAuthHeader(buildOAuthHeader(params, realmValue)), params)
      }),
      { numRuns: propertyRuns(300) },
    )
  })
})

// The client gets a plain 215; the operator's log line (the error's detail) says what was wrong.
describe('what the operator log says of a malformed OAuth header', () => {
  const detailOf = (header: string) => detailOf215(() => parseOAuthHeader(header))

  test('names the position where a name="value" was expected', () => {
    assert.equal(detailOf('OAuth oauth_token="abc'), 'Authorization header: expected name="value" at 6')
    assert.equal(detailOf('OAuth oauth_token="a", !!!'), 'Authorization header: expected name="value" at 23')
  })

  test('names a parameter given twice, as decoded', () => {
    assert.equal(detailOf('OAuth oauth_token="a", oauth%5Ftoken="b"'), 'Authorization header: oauth_token appears twice')
  })
})
