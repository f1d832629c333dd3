import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { collectParameters } from '../../../src/protocol/oauth1/parameters.ts'
import { detailOf215, is215 } from '../../helpers/bad-auth-data.ts'


const HEADER: Array<[string, string]> = [
  ['oauth_consumer_key', 'k'],
  ['oauth_nonce', 'n'],
  ['oauth_signature', 'sig='],
]

describe('collectParameters (RFC 5849 §3.4.1.3.1, with Twitter’s rule for repeats)', () => {
  test('takes parameters from header, query and body, leaving oauth_signature out of the signed list', () => {
    const { protocol, signed } = collectParameters({
      header: HEADER,
      query: [['q', '1']],
      body: [['b', '2']],
    })
    assert.deepEqual([...protocol], HEADER)
    assert.deepEqual(signed, [
      ['oauth_consumer_key', 'k'],
      ['oauth_nonce', 'n'],
      ['q', '1'],
      ['b', '2'],
    ])
  })

  test('accepts a request without an Authorization header', () => {
    const { protocol, signed } = collectParameters({
      header: undefined,
      query: [
        ['oauth_token', 'rt'],
        ['oauth_verifier', 'v'],
      ],
      body: [],
    })
    assert.equal(protocol.get('oauth_token'), 'rt')
    assert.deepEqual(signed, [
      ['oauth_token', 'rt'],
      ['oauth_verifier', 'v'],
    ])
  })

  test('counts an oauth_ parameter sent with the same value in header and body once', () => {
    // twitter-api-v2 login(): oauth_token in header and body; oauth-1.0a README: oauth_callback likewise.
    const { protocol, signed } = collectParameters({
      header: [...HEADER, ['oauth_token', 't']],
      query: [],
      body: [
        ['oauth_token', 't'],
        ['oauth_verifier', 'v'],
      ],
    })
    assert.equal(signed.filter(([name]) => name === 'oauth_token').length, 1)
    assert.equal(protocol.get('oauth_token'), 't')
    assert.equal(protocol.get('oauth_verifier'), 'v')
  })

  test('counts an oauth_ parameter found in all three sources with one value once', () => {
    const { signed } = collectParameters({
      header: [['oauth_callback', 'oob']],
      query: [['oauth_callback', 'oob']],
      body: [['oauth_callback', 'oob']],
    })
    assert.deepEqual(signed, [['oauth_callback', 'oob']])
  })

  test('treats oauth_signature like any protocol parameter for repeats', () => {
    const { protocol, signed } = collectParameters({
      header: HEADER,
      query: [['oauth_signature', 'sig=']],
      body: [],
    })
    assert.equal(protocol.get('oauth_signature'), 'sig=')
    assert.equal(signed.some(([name]) => name === 'oauth_signature'), false)
    const otherSignature: Array<[string, string]> = [['oauth_signature', 'other=']]
    assert.throws(() => collectParameters({ header: HEADER, query: [], body: otherSignature }), is215)
  })

  test('rejects an oauth_ parameter with different values in two sources with 215', () => {
    assert.throws(
      () => collectParameters({ header: [['oauth_token', 'a']], query: [], body: [['oauth_token', 'b']] }),
      is215,
    )
    assert.throws(
      () => collectParameters({ header: undefined, query: [['oauth_nonce', 'a']], body: [['oauth_nonce', 'A']] }),
      is215,
    )
    assert.throws(
      () => collectParameters({ header: [['oauth_token', '']], query: [['oauth_token', 'x']], body: [] }),
      is215,
    )
  })

  test('rejects an oauth_ parameter twice within one source with 215, even with the same value', () => {
    const twice: Array<[string, string]> = [
      ['oauth_token', 'a'],
      ['oauth_token', 'a'],
    ]
    assert.throws(() => collectParameters({ header: undefined, query: twice, body: [] }), is215)
    assert.throws(() => collectParameters({ header: undefined, query: [], body: twice }), is215)
    assert.throws(() => collectParameters({ header: twice, query: [], body: [] }), is215)
  })

  test('keeps every repeat of a non-oauth parameter, within and across sources', () => {
    const { signed } = collectParameters({
      header: undefined,
      query: [
        ['a3', 'a'],
        ['a3', 'a'],
      ],
      body: [
        ['a3', '2 q'],
        ['a3', 'a'],
      ],
    })
    assert.deepEqual(signed, [
      ['a3', 'a'],
      ['a3', 'a'],
      ['a3', '2 q'],
      ['a3', 'a'],
    ])
  })

  test('treats only names starting with lower-case oauth_ as protocol parameters', () => {
    const { protocol, signed } = collectParameters({
      header: undefined,
      query: [
        ['OAUTH_TOKEN', 'x'],
        ['oauth', 'y'],
        ['oauthtoken', 'z'],
      ],
      body: [['OAUTH_TOKEN', 'x']],
    })
    assert.equal(protocol.size, 0)
    assert.equal(signed.length, 4)
  })

  test('signs non-oauth parameters found in the header (RFC 5849 §3.4.1.3.1; Twitter would drop them)', () => {
    const { protocol, signed } = collectParameters({
      header: [['x_auth_access_type', 'read'], ...HEADER],
      query: [],
      body: [],
    })
    assert.equal(protocol.has('x_auth_access_type'), false)
    assert.deepEqual(signed[0], ['x_auth_access_type', 'read'])
  })
})

// The client gets a plain 215; the operator's log line (the error's detail) says what was wrong.
describe('what the operator log says of a refused parameter set', () => {
  const detailOf = (sources: Parameters<typeof collectParameters>[0]) => detailOf215(() => collectParameters(sources))
  const twice: Array<[string, string]> = [
    ['oauth_nonce', 'a'],
    ['oauth_nonce', 'b'],
  ]

  test('a name repeated within one source names the name and the source', () => {
    assert.equal(detailOf({ header: twice, query: [], body: [] }), 'oauth_nonce repeated in the header')
    assert.equal(detailOf({ header: undefined, query: twice, body: [] }), 'oauth_nonce repeated in the query')
    assert.equal(detailOf({ header: undefined, query: [], body: twice }), 'oauth_nonce repeated in the body')
  })

  test('a name with two values in two sources names the name', () => {
    assert.equal(detailOf({ header: [['oauth_token', 'a']], query: [], body: [['oauth_token', 'b']] }), 'oauth_token differs between sources')
  })
})
