import assert from 'node:assert/strict'
import { createHash, createHmac } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { updateApp } from '../../src/domain/registry/apps.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { errorCode, send, signRequest, signedFetch } from '../helpers/oauth1-client.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'
import { injectedTestServer, startTestServer, testClock, type TestServer } from '../helpers/test-app.ts'

const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/** A header written by hand, for the shapes real clients send that oauth-1.0a never would. */
function handSigned(url: string, method: string, consumer: { key: string; secret: string }, params: Record<string, string>, extra: Array<[string, string]> = []) {
  const u = new URL(url)
  const all: Array<[string, string]> = [...Object.entries(params), ...extra, ...[...u.searchParams.entries()]]
  const normalized = all.map(([k, v]) => [enc(k), enc(v)]).sort(([a, b], [c, d]) => (a! < c! ? -1 : a! > c! ? 1 : b! < d! ? -1 : b! > d! ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join('&')
  const base = `${method}&${enc(`${u.protocol}//${u.host}${u.pathname}`)}&${enc(normalized)}`
  const signature = createHmac('sha1', `${enc(consumer.secret)}&`).update(base).digest('base64')
  return { ...params, oauth_signature: signature }
}

function baseParams(consumerKey: string, overrides: Record<string, string> = {}) {
  return {
    oauth_consumer_key: consumerKey,
    oauth_nonce: `n${Math.random().toString(36).slice(2)}${Date.now()}`,
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(Math.floor(Date.now() / 1000)),
    oauth_version: '1.0',
    oauth_callback: 'oob',
    ...overrides,
  }
}

describe('every signed request', () => {
  let server: TestServer
  let app: AppRecord
  const consumer = () => ({ key: app.consumerKey, secret: app.consumerSecret })
  const rtUrl = () => `${server.url}/oauth/request_token`

  before(async () => {
    server = await startTestServer()
    app = await makeApp(server.domain)
  })
  after(() => server.close())

  describe('the Authorization header parser is tolerant of what real clients send (C3)', () => {
    const shapes: Record<string, (p: Record<string, string>) => string> = {
      'lower-case scheme': (p) => `oauth ${Object.entries(p).map(([k, v]) => `${k}="${enc(v)}"`).join(', ')}`,
      'commas without spaces': (p) => `OAuth ${Object.entries(p).map(([k, v]) => `${k}="${enc(v)}"`).join(',')}`,
      'a space before the comma': (p) => `OAuth ${Object.entries(p).map(([k, v]) => `${k}="${enc(v)}"`).join(' ,')}`,
      'realm first, which is not signed (C8)': (p) => `OAuth realm="https://api.example.com/", ${Object.entries(p).map(([k, v]) => `${k}="${enc(v)}"`).join(', ')}`,
      'reverse order': (p) => `OAuth ${Object.entries(p).reverse().map(([k, v]) => `${k}="${enc(v)}"`).join(', ')}`,
      'unquoted values': (p) => `OAuth ${Object.entries(p).map(([k, v]) => `${k}=${enc(v)}`).join(', ')}`,
    }
    for (const [name, write] of Object.entries(shapes)) {
      test(name, async () => {
        const params = handSigned(rtUrl(), 'POST', consumer(), baseParams(app.consumerKey))
        const answer = await send({ method: 'POST', url: rtUrl(), headers: { authorization: write(params) } })
        assert.equal(answer.status, 200, answer.text)
      })
    }

    test('an empty oauth_token="" is a token-less request, still signed', async () => {
      const params = handSigned(rtUrl(), 'POST', consumer(), baseParams(app.consumerKey, { oauth_token: '' }))
      const header = `OAuth ${Object.entries(params).map(([k, v]) => `${k}="${enc(v)}"`).join(', ')}`
      assert.equal((await send({ method: 'POST', url: rtUrl(), headers: { authorization: header } })).status, 200)
    })

    test('garbage or a missing header gets 400 code 215 "Bad Authentication data." (C6, C38)', async () => {
      for (const authorization of ['OAuth oauth_consumer_key="abc', 'OAuth ===', 'OAuth oauth_nonce="a", oauth_nonce="b"', 'Basic Zm9vOmJhcg==', undefined]) {
        const answer = await send({ method: 'POST', url: rtUrl(), headers: authorization ? { authorization } : {} })
        assert.equal(answer.status, 400, String(authorization))
        assert.deepEqual(answer.json, { errors: [{ code: 215, message: 'Bad Authentication data.' }] })
      }
      // In its place, a well-formed header signed for the same call is accepted.
      const params = handSigned(rtUrl(), 'POST', consumer(), baseParams(app.consumerKey))
      const header = `OAuth ${Object.entries(params).map(([k, v]) => `${k}="${enc(v)}"`).join(', ')}`
      assert.equal((await send({ method: 'POST', url: rtUrl(), headers: { authorization: header } })).status, 200)
    })

    test('a missing mandatory oauth_ parameter gets 400 code 215 (C10)', async () => {
      for (const drop of ['oauth_consumer_key', 'oauth_nonce', 'oauth_signature_method', 'oauth_timestamp', 'oauth_signature']) {
        await assertRefusedOnlyWhenBroken((variant) => {
          const params = handSigned(rtUrl(), 'POST', consumer(), baseParams(app.consumerKey))
          if (variant === 'broken') delete (params as Record<string, string>)[drop]
          const header = `OAuth ${Object.entries(params).map(([k, v]) => `${k}="${enc(v)}"`).join(', ')}`
          return send({ method: 'POST', url: rtUrl(), headers: { authorization: header } })
        }, { status: 400, code: 215 })
      }
    })
  })

  test('oauth_version may be 1.0, 1.0A or absent; anything else gets 400 code 215 (C12)', async () => {
    assert.equal((await signedFetch({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' }, version: '1.0A' })).status, 200)
    const { oauth_version: _dropped, ...withoutVersion } = baseParams(app.consumerKey)
    const params = handSigned(rtUrl(), 'POST', consumer(), withoutVersion)
    const header = `OAuth ${Object.entries(params).map(([k, v]) => `${k}="${enc(v)}"`).join(', ')}`
    assert.equal((await send({ method: 'POST', url: rtUrl(), headers: { authorization: header } })).status, 200)
    const bad = await signedFetch({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' }, version: '2.0' })
    assert.equal(bad.status, 400)
    assert.equal(errorCode(bad), 215)
  })

  test('a timestamp outside ±300 s gets 401 code 135 "Timestamp out of bounds.", and every answer has a Date header (C15)', async () => {
    // The clock is read again for each request: on a loaded machine the requests can be seconds apart.
    for (const stamp of [(now: number) => now - 301, (now: number) => now + 301, (now: number) => now * 1000]) {
      const now = Math.floor(Date.now() / 1000)
      const answer = await signedFetch({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' }, timestamp: stamp(now) })
      assert.equal(answer.status, 401)
      assert.deepEqual(answer.json, { errors: [{ code: 135, message: 'Timestamp out of bounds.' }] })
      assert.ok(Math.abs(Date.parse(answer.headers.get('date')!) / 1000 - now) < 60)
    }
    // Within the bound is accepted (stamped 250 s behind is tested with a clock ahead of the nonce
    // store's epoch, in "how long a nonce is remembered": here it would be before it).
    assert.equal((await signedFetch({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' }, timestamp: Math.floor(Date.now() / 1000) + 250 })).status, 200)
  })

  test('a non-numeric timestamp gets 400 code 215 (C14)', async () => {
    await assertRefusedOnlyWhenBroken((variant) => {
      const overrides: Record<string, string> = variant === 'broken' ? { oauth_timestamp: '12ab' } : {}
      const params = handSigned(rtUrl(), 'POST', consumer(), baseParams(app.consumerKey, overrides))
      const header = `OAuth ${Object.entries(params).map(([k, v]) => `${k}="${enc(v)}"`).join(', ')}`
      return send({ method: 'POST', url: rtUrl(), headers: { authorization: header } })
    }, { status: 400, code: 215 })
  })

  test('a replayed nonce gets 401 code 32; the same nonce from another consumer is fine (C20)', async () => {
    const signed = signRequest({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' }, nonce: 'replayed-nonce-abcdef' })
    assert.equal((await send(signed)).status, 200)
    const replay = await send(signed)
    assert.equal(replay.status, 401)
    assert.equal(errorCode(replay), 32)
    const other = await makeApp(server.domain)
    assert.equal((await signedFetch({ consumer: { key: other.consumerKey, secret: other.consumerSecret }, url: rtUrl(), oauth: { oauth_callback: 'oob' }, nonce: 'replayed-nonce-abcdef' })).status, 200)
  })

  test('a nonce of any printable ASCII is accepted, a dot and slashes included (C17)', async () => {
    for (const nonce of ['1234.abcd/ef+gh', 'x', 'a b c']) {
      assert.equal((await signedFetch({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' }, nonce })).status, 200, nonce)
    }
  })

  test('a tampered signature or parameter gets 401 code 32 (C24)', async () => {
    await assertRefusedOnlyWhenBroken((variant) => {
      const signed = signRequest({ consumer: consumer(), url: `${rtUrl()}?x=1`, oauth: { oauth_callback: 'oob' } })
      return send(variant === 'broken' ? { ...signed, url: `${rtUrl()}?x=2` } : signed)
    }, { status: 401, code: 32 })
    await assertRefusedOnlyWhenBroken((variant) => {
      const signed = signRequest({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' } })
      const authorization = signed.headers.authorization!.replace(/oauth_signature="([^"]*)"/, (_, value: string) => `oauth_signature="${variant === 'broken' ? `${value.startsWith('A') ? 'B' : 'A'}${value.slice(1)}` : value}"`)
      return send({ ...signed, headers: { ...signed.headers, authorization } })
    }, { status: 401, code: 32 })
  })

  test('HMAC-SHA1 is the only method allowed by default; HMAC-SHA256 works once the app allows it (C11)', async () => {
    const sha256 = () => signedFetch({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' }, signatureMethod: 'HMAC-SHA256' })
    assert.equal(errorCode(await sha256()), 32)
    const bogus = await signedFetch({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' }, signatureMethod: 'RSA-SHA1' as 'HMAC-SHA1' })
    assert.equal(errorCode(bogus), 32)
    app = await updateApp(server.domain, app.id, { signatureMethods: ['HMAC-SHA1', 'HMAC-SHA256'] })
    assert.equal((await sha256()).status, 200)
  })

  test('PLAINTEXT is refused over plain HTTP even when the app allows it (C45)', async () => {
    const plain = await makeApp(server.domain, { signatureMethods: ['PLAINTEXT'] })
    const answer = await signedFetch({ consumer: { key: plain.consumerKey, secret: plain.consumerSecret }, url: rtUrl(), oauth: { oauth_callback: 'oob' }, signatureMethod: 'PLAINTEXT' })
    assert.equal(errorCode(answer), 32)
  })

  test('a form body is signed, + in it is a space, and lower-case escapes are accepted (C1, C44)', async () => {
    const body = { status: 'Hello Ladies + Gentlemen, a signed OAuth request!', lang: 'ü' }
    const signed = signRequest({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' }, body })
    const rewritten = signed.body!.replace('%2C', '%2c').replace('%C3%BC', '%c3%bc')
    assert.ok(signed.body!.includes('+'))
    assert.equal((await send({ ...signed, body: rewritten })).status, 200)
  })

  test('a body that is not form-encoded is not signed (C1), and oauth_body_hash must match it', async () => {
    const json = '{"a":"b"}'
    const signed = signRequest({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' } })
    assert.equal((await send({ ...signed, headers: { ...signed.headers, 'content-type': 'application/json' }, body: json })).status, 200)
    const hash = createHash('sha1').update(json).digest('base64')
    const withHash = signRequest({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob', oauth_body_hash: hash } })
    assert.equal((await send({ ...withHash, headers: { ...withHash.headers, 'content-type': 'application/json' }, body: json })).status, 200)
    const wrongHash = signRequest({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob', oauth_body_hash: hash } })
    const answer = await send({ ...wrongHash, headers: { ...wrongHash.headers, 'content-type': 'application/json' }, body: '{"a":"c"}' })
    assert.equal(errorCode(answer), 32)
  })

  test('with HMAC-SHA256, oauth_body_hash is the SHA-256 of the body, not its SHA-1', async () => {
    const sha256App = await makeApp(server.domain, { signatureMethods: ['HMAC-SHA256'] })
    const json = '{"a":"b"}'
    await assertRefusedOnlyWhenBroken(
      (variant) => {
        const hash = createHash(variant === 'broken' ? 'sha1' : 'sha256').update(json).digest('base64')
        const signed = signRequest({
          consumer: { key: sha256App.consumerKey, secret: sha256App.consumerSecret },
          url: rtUrl(),
          oauth: { oauth_callback: 'oob', oauth_body_hash: hash },
          signatureMethod: 'HMAC-SHA256',
        })
        return send({ ...signed, headers: { ...signed.headers, 'content-type': 'application/json' }, body: json })
      },
      { status: 401, code: 32 },
    )
  })

  test('a malformed percent-escape in the query gets 400 code 215 (C2)', async () => {
    await assertRefusedOnlyWhenBroken((variant) => {
      const signed = signRequest({ consumer: consumer(), url: `${rtUrl()}?x=%20`, oauth: { oauth_callback: 'oob' } })
      return send(variant === 'broken' ? { ...signed, url: `${rtUrl()}?x=%G0` } : signed)
    }, { status: 400, code: 215 })
  })

  test('an empty POST with neither Content-Type nor Content-Length is fine', async () => {
    const signed = signRequest({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' } })
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(rtUrl(), { method: 'POST', headers: { authorization: signed.headers.authorization } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      req.end()
    })
    assert.equal(status, 200)
  })

  test('when several checks fail, the answer is the first of 215, 135, 416, 89, 32', async () => {
    const verifyUrl = `${server.url}/1.1/account/verify_credentials.json`
    const old = Math.floor(Date.now() / 1000) - 3600
    const unknownToken = { key: '1-unknown', secret: 'x' }
    const wrongSecret = { key: app.consumerKey, secret: 'wrong' }
    // 215 before 135: bad version and old timestamp.
    assert.equal(errorCode(await signedFetch({ consumer: wrongSecret, token: unknownToken, method: 'GET', url: verifyUrl, timestamp: old, version: '9' })), 215)
    // 135 before 89 and 32.
    assert.equal(errorCode(await signedFetch({ consumer: wrongSecret, token: unknownToken, method: 'GET', url: verifyUrl, timestamp: old })), 135)
    // 416 before 89 and 32.
    const suspended = await makeApp(server.domain)
    await updateApp(server.domain, suspended.id, { isSuspended: true })
    // 135 before 416: a stale timestamp to a suspended app.
    assert.equal(errorCode(await signedFetch({ consumer: { key: suspended.consumerKey, secret: suspended.consumerSecret }, method: 'GET', url: verifyUrl, timestamp: old })), 135)
    assert.equal(errorCode(await signedFetch({ consumer: { key: suspended.consumerKey, secret: 'wrong' }, token: unknownToken, method: 'GET', url: verifyUrl })), 416)
    // 89 before 32.
    assert.equal(errorCode(await signedFetch({ consumer: wrongSecret, token: unknownToken, method: 'GET', url: verifyUrl })), 89)
    // 32 alone.
    const { token } = await issueOwnerToken(server.domain, app.id)
    assert.equal(errorCode(await signedFetch({ consumer: wrongSecret, token: { key: token.token, secret: token.secret }, method: 'GET', url: verifyUrl })), 32)
  })
})

describe('signature base URL behind a proxy or a public URL (C9, C43)', () => {
  test('--public-url: the request is checked against the public URL, not the Host header', async () => {
    const server = await startTestServer({ http: { publicUrl: new URL('https://api.example.com') } })
    try {
      const app = await makeApp(server.domain)
      const signed = signRequest({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, url: 'https://api.example.com/oauth/request_token', oauth: { oauth_callback: 'oob' } })
      assert.equal((await send({ ...signed, url: `${server.url}/oauth/request_token` })).status, 200)
      const local = await signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
      assert.equal(errorCode(local), 32)
    } finally {
      await server.close()
    }
  })

  test('--public-url with a port that is not the default: the port is in the base string (RFC 5849 §3.4.1.2); a default port is left out', async () => {
    for (const [publicUrl, signedFor, notFor] of [
      ['https://api.example.com:8443', 'https://api.example.com:8443', 'https://api.example.com'],
      ['http://api.example.com:8080', 'http://api.example.com:8080', 'http://api.example.com'],
      ['https://api.example.com:443', 'https://api.example.com', 'https://api.example.com:443'],
    ] as const) {
      const server = await injectedTestServer({ http: { publicUrl: new URL(publicUrl) } })
      try {
        const app = await makeApp(server.domain)
        const consumer = { key: app.consumerKey, secret: app.consumerSecret }
        const attempt = (base: string) => {
          const signed = signRequest({ consumer, url: `${base}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
          return server.send({ ...signed, url: `${server.url}/oauth/request_token` })
        }
        const accepted = await attempt(signedFor)
        assert.equal(accepted.status, 200, `${publicUrl}, signed for ${signedFor}: ${accepted.text}`)
        assert.equal(errorCode(await attempt(notFor)), 32, `${publicUrl}, signed for ${notFor}`)
      } finally {
        await server.close()
      }
    }
  })

  test('a trusted proxy: scheme and host come from X-Forwarded-Proto/Host; plain HTTP gets 403 code 92; PLAINTEXT works over HTTPS', async () => {
    const server = await startTestServer({ http: { dev: false, trustProxy: ['127.0.0.1'] } })
    try {
      const app = await makeApp(server.domain, { signatureMethods: ['HMAC-SHA1', 'PLAINTEXT'] })
      const consumer = { key: app.consumerKey, secret: app.consumerSecret }
      const signed = signRequest({ consumer, url: 'https://auth.example.org/oauth/request_token', oauth: { oauth_callback: 'oob' } })
      const viaProxy = await send({ ...signed, url: `${server.url}/oauth/request_token`, headers: { ...signed.headers, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'auth.example.org' } })
      assert.equal(viaProxy.status, 200, viaProxy.text)
      const plain = await send({ ...signed, url: `${server.url}/oauth/request_token`, headers: { ...signed.headers, 'x-forwarded-proto': 'http', 'x-forwarded-host': 'auth.example.org' } })
      assert.equal(plain.status, 403)
      assert.deepEqual(plain.json, { errors: [{ code: 92, message: 'SSL is required' }] })
      const plaintext = signRequest({ consumer, url: 'https://auth.example.org/oauth/request_token', oauth: { oauth_callback: 'oob' }, signatureMethod: 'PLAINTEXT' })
      const answer = await send({ ...plaintext, url: `${server.url}/oauth/request_token`, headers: { ...plaintext.headers, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'auth.example.org' } })
      assert.equal(answer.status, 200, answer.text)
    } finally {
      await server.close()
    }
  })
})

describe('how long a nonce is remembered', () => {
  // Ten minutes ahead of the nonce store's epoch (its creation on the real clock), so that a request
  // stamped 290 s behind this clock is still after it.
  const clock = testClock(Date.now() + 600_000)
  let server: TestServer
  let app: AppRecord
  const consumer = () => ({ key: app.consumerKey, secret: app.consumerSecret })
  const rtUrl = () => `${server.url}/oauth/request_token`
  const serverSeconds = () => Math.floor(clock.nowMs() / 1000)

  before(async () => {
    server = await startTestServer({ clock })
    app = await makeApp(server.domain)
  })
  after(() => server.close())

  // The nonce must outlive the request's timeliness (timestamp + 300 s), however the client's clock stands.
  for (const [what, offsetSeconds] of [['stamped 290 s ahead of the server', 290], ['stamped on time', 0], ['stamped 290 s behind', -290]] as const) {
    test(`a request ${what} cannot be replayed while it is still timely`, async () => {
      const signed = signRequest({ consumer: consumer(), url: rtUrl(), oauth: { oauth_callback: 'oob' }, timestamp: serverSeconds() + offsetSeconds })
      assert.equal((await send(signed)).status, 200)
      const stillTimelyFor = offsetSeconds + 300 - 5
      clock.advance(stillTimelyFor * 1000)
      try {
        const replay = await send(signed)
        assert.equal(replay.status, 401)
        assert.equal(errorCode(replay), 32, 'refused as a replayed nonce, not as a late timestamp')
      } finally {
        clock.advance(-stillTimelyFor * 1000)
      }
    })
  }
})
