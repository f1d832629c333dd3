import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { parseOAuthHeader } from '../../../src/protocol/oauth1/auth-header.ts'
import { parseFormEncoded } from '../../../src/protocol/form.ts'
import { collectParameters } from '../../../src/protocol/oauth1/parameters.ts'
import {
  SIGNATURE_METHODS,
  type SignatureMethod,
  baseStringUri,
  buildBaseString,
  isSignatureMethod,
  normalizeParameters,
  sign,
  signingKey,
  verifySignature,
} from '../../../src/protocol/oauth1/signature.ts'
import { detailOf215, is215 } from '../../helpers/bad-auth-data.ts'


/** The server's whole path from a raw request to the base string, as the domain layer will run it. */
interface RawRequest {
  method: string
  scheme: string
  host: string
  target: string
  header?: string
  body?: string
}

function baseStringOf(request: RawRequest) {
  const q = request.target.indexOf('?')
  const { protocol, signed } = collectParameters({
    header: parseOAuthHeader(request.header),
    query: q === -1 ? [] : parseFormEncoded(request.target.slice(q + 1)),
    body: parseFormEncoded(request.body ?? ''),
  })
  const uri = baseStringUri({ scheme: request.scheme, host: request.host, path: request.target })
  return { protocol, baseString: buildBaseString(request.method, uri, signed) }
}

describe('the RFC 5849 §3.4.1 worked example', () => {
  const request = {
    method: 'POST',
    scheme: 'http',
    host: 'example.com',
    target: '/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b',
    header:
      'OAuth realm="Example", oauth_consumer_key="9djdj82h48djs9d2", oauth_token="kkk9d7dh3k39sjv7", ' +
      'oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131201", oauth_nonce="7d8f3e4a", ' +
      'oauth_signature="djosJKDKJSD8743243%2Fjdk33klY%3D"',
    body: 'c2&a3=2+q',
  }

  test('normalizes the parameters exactly as §3.4.1.3.2 prints them', () => {
    const q = request.target.indexOf('?')
    const { signed } = collectParameters({
      header: parseOAuthHeader(request.header),
      query: parseFormEncoded(request.target.slice(q + 1)),
      body: parseFormEncoded(request.body),
    })
    assert.equal(
      normalizeParameters(signed),
      'a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2=&oauth_consumer_key=9djdj82h48djs9d2' +
        '&oauth_nonce=7d8f3e4a&oauth_signature_method=HMAC-SHA1&oauth_timestamp=137131201' +
        '&oauth_token=kkk9d7dh3k39sjv7',
    )
  })

  test('builds exactly the base string §3.4.1.1 prints', () => {
    assert.equal(
      baseStringOf(request).baseString,
      'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q' +
        '%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_' +
        'key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_m' +
        'ethod%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk' +
        '9d7dh3k39sjv7',
    )
  })

  test('gives the HMAC-SHA256 value published by an independent implementation (Faithlife.OAuth)', () => {
    const base = buildBaseString('POST', 'http://example.com/request', [
      ...parseFormEncoded('b5=%3D%253D&a3=a&c%40=&a2=r%20b&c2&a3=2+q'),
      ['oauth_consumer_key', '9djdj82h48djs9d2'],
      ['oauth_token', 'kkk9d7dh3k39sjv7'],
      ['oauth_signature_method', 'HMAC-SHA256'],
      ['oauth_timestamp', '137131201'],
      ['oauth_nonce', '7d8f3e4a'],
    ])
    const expected = 'ypAxjNip++Dm0fTM+gCl8wAo6ufSnseu1WHxL7py3BU='
    assert.equal(sign('HMAC-SHA256', base, 'j49sk3j29djd', 'dh893hdasih9'), expected)
  })
})

describe('the RFC 5849 §1.2 example (photos.example.net)', () => {
  const consumerSecret = 'kd94hf93k423kf44'
  const cases = [
    {
      name: 'temporary credentials request',
      request: {
        method: 'POST',
        scheme: 'https',
        host: 'photos.example.net',
        target: '/initiate',
        header:
          'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_signature_method="HMAC-SHA1", ' +
          'oauth_timestamp="137131200", oauth_nonce="wIjqoS", ' +
          'oauth_callback="http%3A%2F%2Fprinter.example.com%2Fready", ' +
          'oauth_signature="74KNZJeDHnMBp0EMJ9ZHt%2FXKycU%3D"',
      },
      tokenSecret: '',
      signature: '74KNZJeDHnMBp0EMJ9ZHt/XKycU=',
    },
    {
      name: 'token credentials request',
      request: {
        method: 'POST',
        scheme: 'https',
        host: 'photos.example.net',
        target: '/token',
        header:
          'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="hh5s93j4hdidpola", ' +
          'oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131201", oauth_nonce="walatlh", ' +
          'oauth_verifier="hfdp7dh39dks9884", oauth_signature="gKgrFCywp7rO0OXSjdot%2FIHF7IU%3D"',
      },
      tokenSecret: 'hdhd0244k9j7ao03',
      signature: 'gKgrFCywp7rO0OXSjdot/IHF7IU=',
    },
    {
      name: 'protected resource request',
      request: {
        method: 'GET',
        scheme: 'http',
        host: 'photos.example.net',
        target: '/photos?file=vacation.jpg&size=original',
        header:
          'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="nnch734d00sl2jdk", ' +
          'oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131202", oauth_nonce="chapoH", ' +
          'oauth_signature="MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D"',
      },
      tokenSecret: 'pfkkdhi9sl3r4s00',
      signature: 'MdpQcU8iPSUjWoN/UDMsK2sui9I=',
    },
  ]
  for (const { name, request, tokenSecret, signature } of cases) {
    test(`signs and verifies the ${name}`, () => {
      const { protocol, baseString } = baseStringOf(request)
      assert.equal(protocol.get('oauth_signature'), signature)
      assert.equal(sign('HMAC-SHA1', baseString, consumerSecret, tokenSecret), signature)
      assert.equal(verifySignature('HMAC-SHA1', baseString, consumerSecret, tokenSecret, signature), true)
      assert.equal(verifySignature('HMAC-SHA1', baseString, consumerSecret, `${tokenSecret}x`, signature), false)
    })
  }
})

describe('Twitter’s “Creating a signature” example', () => {
  const request = {
    method: 'POST',
    scheme: 'https',
    host: 'api.twitter.com',
    target: '/1.1/statuses/update.json?include_entities=true',
    header:
      'OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", ' +
      'oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", ' +
      'oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D", oauth_signature_method="HMAC-SHA1", ' +
      'oauth_timestamp="1318622958", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", ' +
      'oauth_version="1.0"',
    body: 'status=Hello%20Ladies%20%2b%20Gentlemen%2c%20a%20signed%20OAuth%20request%21',
  }
  const consumerSecret = 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw'
  const tokenSecret = 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE'

  test('builds the documented signing key and base string', () => {
    assert.equal(signingKey(consumerSecret, tokenSecret), `${consumerSecret}&${tokenSecret}`)
    assert.equal(
      baseStringOf(request).baseString,
      'POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue' +
        '%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3DkYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg' +
        '%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958' +
        '%26oauth_token%3D370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb%26oauth_version%3D1.0' +
        '%26status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521',
    )
  })

  test('computes hCtSmYh+iHYCEqBWrE7C7hYmtUk= and verifies it', () => {
    // The page's sample header shows tnnArxj06cWHq44gCs1OSKk/jLY=, which is the signature of the
    // same request against the older /1/ path; the base string above hashes to hCtSm… (checked with openssl).
    const { protocol, baseString } = baseStringOf(request)
    assert.equal(sign('HMAC-SHA1', baseString, consumerSecret, tokenSecret), 'hCtSmYh+iHYCEqBWrE7C7hYmtUk=')
    const received = protocol.get('oauth_signature') ?? ''
    assert.equal(verifySignature('HMAC-SHA1', baseString, consumerSecret, tokenSecret, received), true)
  })
})

describe('baseStringUri (RFC 5849 §3.4.1.2)', () => {
  const uri = (scheme: string, host: string, path: string): string => baseStringUri({ scheme, host, path })

  test('reproduces the two §3.4.1.2 examples', () => {
    assert.equal(uri('http', 'EXAMPLE.COM:80', '/r%20v/X?id=123'), 'http://example.com/r%20v/X')
    assert.equal(uri('https', 'www.example.net:8080', '/?q=1'), 'https://www.example.net:8080/')
  })

  test('drops only the default port of the scheme', () => {
    assert.equal(uri('https', 'api.x.com:443', '/oauth/request_token'), 'https://api.x.com/oauth/request_token')
    assert.equal(uri('HTTPS', 'api.x.com:80', '/a'), 'https://api.x.com:80/a')
    assert.equal(uri('http', 'api.x.com:443', '/a'), 'http://api.x.com:443/a')
    assert.equal(uri('http', '127.0.0.1:8765', '/oauth/request_token'), 'http://127.0.0.1:8765/oauth/request_token')
    assert.equal(uri('http', 'localhost:0080', '/'), 'http://localhost/')
    assert.equal(uri('http', 'localhost:', '/'), 'http://localhost/')
  })

  test('keeps IPv6 literals in brackets, lower-cased, with their port', () => {
    assert.equal(uri('https', '[::1]:8443', '/x'), 'https://[::1]:8443/x')
    assert.equal(uri('https', '[FE80::1]:443', '/x'), 'https://[fe80::1]/x')
    assert.equal(uri('http', '[::1]', ''), 'http://[::1]/')
    // The port is looked for after the bracket, even when the literal ends in a colon.
    assert.equal(uri('http', '[::]:8080', '/'), 'http://[::]:8080/')
  })

  test('uses the path in its wire form, turning an empty path into / and dropping query and fragment', () => {
    assert.equal(uri('http', 'h', ''), 'http://h/')
    assert.equal(uri('http', 'h', '?a=1'), 'http://h/')
    assert.equal(uri('http', 'h', '/a%2Fb/caf%c3%a9/~x;y=1#frag'), 'http://h/a%2Fb/caf%c3%a9/~x;y=1')
    assert.equal(uri('http', 'h', '/Path/With/CAPS'), 'http://h/Path/With/CAPS')
  })

  test('rejects a bad host or a port outside 1–65535 with 215', () => {
    const bad = ['', ':80', 'h:0', 'h:65536', 'h:123456', 'h:8o', 'h:-1', 'h:80:80']
    bad.push('::1', '[::1', '[::1]x', 'a b', 'a/b', 'u@h', 'a[1.2.3.4]')
    for (const host of bad) {
      assert.throws(() => uri('http', host, '/'), is215, host)
    }
    assert.equal(uri('http', 'h:65535', '/'), 'http://h:65535/')
  })
})

describe('normalizeParameters (RFC 5849 §3.4.1.3.2)', () => {
  test('sorts by encoded name in byte order, not locale order', () => {
    assert.equal(
      normalizeParameters([
        ['a', '1'],
        ['_', '1'],
        ['Z', '1'],
        ['B', '1'],
      ]),
      'B=1&Z=1&_=1&a=1',
    )
  })

  test('sorts the encoded forms, so é (%C3%A9) comes before z', () => {
    assert.equal(
      normalizeParameters([
        ['z', ''],
        ['é', ''],
      ]),
      '%C3%A9=&z=',
    )
  })

  test('orders repeated names by encoded value', () => {
    assert.equal(
      normalizeParameters([
        ['a', '2'],
        ['a', '1'],
        ['a', 'a+b'],
        ['a', 'a b'],
      ]),
      'a=1&a=2&a=a%20b&a=a%2Bb',
    )
  })

  test('the base string sorts the way normalizeParameters does, for a few pairs and for many', () => {
    for (const count of [3, 16, 17, 40]) {
      // Shuffled names (i × 7 mod a prime past 40), repeated names, values that encode.
      const pairs = Array.from({ length: count }, (_, i): [string, string] => [`p${String(((i * 7) % 41) + 1).padStart(2, '0')}`, `${i}`])
      pairs.push(['p01', '+'], ['p01', '%'], ['p01', 'a b'])
      const expected = `POST&http%3A%2F%2Fh%2F&${encodeURIComponent(normalizeParameters(pairs))}`
      assert.equal(buildBaseString('post', 'http://h/', pairs), expected, `${count} pairs`)
      assert.deepEqual(normalizeParameters(pairs).split('&').slice(0, 4), ['p01=%25', 'p01=%2B', 'p01=0', 'p01=a%20b'])
    }
  })

  test('the base string orders repeated names by encoded value too', () => {
    const pairs: Array<[string, string]> = [
      ['a', '2'],
      ['a', '1'],
      ['b', 'x'],
      ['a', '3'],
    ]
    assert.equal(buildBaseString('GET', 'http://h/', pairs), 'GET&http%3A%2F%2Fh%2F&a%3D1%26a%3D2%26a%3D3%26b%3Dx')
  })

  test('gives an empty string for no parameters', () => {
    assert.equal(normalizeParameters([]), '')
    assert.equal(buildBaseString('get', 'http://h/', []), 'GET&http%3A%2F%2Fh%2F&')
  })
})

describe('signing and verifying', () => {
  test('lists the three implemented methods', () => {
    assert.deepEqual([...SIGNATURE_METHODS], ['HMAC-SHA1', 'HMAC-SHA256', 'PLAINTEXT'])
    assert.equal(isSignatureMethod('HMAC-SHA1'), true)
    assert.equal(isSignatureMethod('RSA-SHA1'), false)
    assert.equal(isSignatureMethod('hmac-sha1'), false)
  })

  test('builds the key from encoded secrets, with an empty token secret ending in &', () => {
    assert.equal(signingKey('kd94hf93k423kf44', ''), 'kd94hf93k423kf44&')
    assert.equal(signingKey('a&b c', 'é'), 'a%26b%20c&%C3%A9')
  })

  test('makes PLAINTEXT the signing key itself (§3.4.4)', () => {
    const key = 'djr9rjt0jd78jf88&jjd999tj88uiths3'
    assert.equal(sign('PLAINTEXT', 'ignored', 'djr9rjt0jd78jf88', 'jjd999tj88uiths3'), key)
    assert.equal(verifySignature('PLAINTEXT', 'x', 'djr9rjt0jd78jf88', '', 'djr9rjt0jd78jf88&'), true)
  })

  test('rejects a one-character change to the signature, base string or a secret', () => {
    const base = 'POST&http%3A%2F%2Fh%2F&a%3D1'
    for (const method of SIGNATURE_METHODS) {
      const good = sign(method, base, 'cs', 'ts')
      assert.equal(verifySignature(method, base, 'cs', 'ts', good), true)
      const flipped = (good[0] === 'A' ? 'B' : 'A') + good.slice(1)
      assert.equal(verifySignature(method, base, 'cs', 'ts', flipped), false)
      assert.equal(verifySignature(method, base, 'cs', 'tS', good), false)
      if (method !== 'PLAINTEXT') assert.equal(verifySignature(method, `${base}2`, 'cs', 'ts', good), false)
    }
  })

  test('answers false, never throwing, for garbage, non-ASCII, empty or oversized signatures', () => {
    const base = 'GET&http%3A%2F%2Fh%2F&'
    for (const received of ['', 'é', '\u0000', '\uD800', '😀'.repeat(50), 'x'.repeat(100_000), '%%%']) {
      for (const method of SIGNATURE_METHODS) {
        assert.equal(verifySignature(method, base, 'cs', 'ts', received), false)
      }
    }
  })

  test('answers false for a method it does not implement', () => {
    const base = 'GET&http%3A%2F%2Fh%2F&'
    const good = sign('HMAC-SHA1', base, 'cs', '')
    assert.equal(verifySignature('RSA-SHA1' as SignatureMethod, base, 'cs', '', good), false)
    assert.throws(() => sign('RSA-SHA1' as SignatureMethod, base, 'cs', ''), is215)
  })
})

// The client gets a plain 215; the operator's log line (the error's detail) says what was wrong.
describe('what the operator log says of a host or method that cannot be signed', () => {
  const detailOf = detailOf215

  test('a bad host or port is named as the request gave it', () => {
    for (const host of ['a b', 'H:0', 'h:8o', '[::1']) {
      assert.equal(detailOf(() => baseStringUri({ scheme: 'http', host, path: '/' })), `bad host for the base string URI: ${host}`, host)
    }
  })

  test('a method not implemented is named', () => {
    assert.equal(detailOf(() => sign('RSA-SHA1' as SignatureMethod, 'GET&http%3A%2F%2Fh%2F&', 'cs', '')), 'unsupported method RSA-SHA1')
  })
})
