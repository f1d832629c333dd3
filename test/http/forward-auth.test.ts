// /latchkey/forward-auth (src/http/routes/forward-auth.ts) through the whole service: a trusted proxy
// describes a request in headers and hears who is calling, or X's refusal in the status, the body
// and the X-Latchkey-Error header (docs/forward-auth.md). The real nginx and Caddy in front of
// it are test/e2e/forward-auth-proxies.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { FORM_BODY_REASON } from '../../src/domain/forward-auth.ts'
import { issueEveryCredential, type EveryCredential } from '../helpers/fixtures.ts'
import { signRequest } from '../helpers/oauth1-client.ts'
import { buildTestApp, type TestApp } from '../helpers/test-app.ts'

const PROXY = '10.1.2.3'
const STRANGER = '192.0.2.7'
const API = 'https://api.example.com'

describe('/latchkey/forward-auth', () => {
  let t: TestApp
  let issued: EveryCredential
  before(async () => {
    // Production: the HTTPS rule reads X-Forwarded-Proto from the trusted proxy.
    t = await buildTestApp({ http: { dev: false, trustProxy: ['10.0.0.0/8'] } })
    issued = await issueEveryCredential(t.domain)
  })
  after(() => t.close())

  /** A check call as nginx's config makes it: the client's Authorization and Content-Type, the original request in headers. */
  const check = (
    original: { method?: string; uri: string; authorization?: string; contentType?: string },
    options: { from?: string; method?: string; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: (options.method ?? 'GET') as 'GET',
      url: '/latchkey/forward-auth',
      remoteAddress: options.from ?? PROXY,
      headers: {
        host: 'latchkey.internal:8080',
        'x-original-method': original.method ?? 'GET',
        'x-original-uri': original.uri,
        'x-forwarded-host': 'api.example.com',
        'x-forwarded-proto': 'https',
        'x-forwarded-for': '198.51.100.20',
        ...(original.authorization ? { authorization: original.authorization } : {}),
        ...(original.contentType ? { 'content-type': original.contentType } : {}),
        ...options.headers,
      },
    })
  const signed = (method: string, uri: string, credentials: Pick<EveryCredential, 'consumer'> & { token?: EveryCredential['token'] } = issued) =>
    signRequest({ consumer: credentials.consumer, ...(credentials.token ? { token: credentials.token } : {}), method, url: `${API}${uri}` }).headers.authorization!
  const identity = (answer: LightMyRequestResponse) =>
    Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name.startsWith('x-latchkey-') && name !== 'x-latchkey-error'))

  test('OAuth 1.0a user context, signed for the URL the client used (query included): 204 and who it is', async () => {
    const answer = await check({ method: 'POST', uri: '/v1/notes?draft=yes', authorization: signed('POST', '/v1/notes?draft=yes') }, { method: 'POST' })
    assert.equal(answer.statusCode, 204, answer.body)
    assert.equal(answer.body, '')
    assert.deepEqual(identity(answer), {
      'x-latchkey-app-id': issued.app.id,
      'x-latchkey-token-kind': 'oauth1_user',
      'x-latchkey-access-level': 'read-write',
      'x-latchkey-user-id': issued.user.id,
      'x-latchkey-screen-name': issued.user.screenName,
      'x-latchkey-scopes': '',
    })
    assert.equal(answer.headers['x-rate-limit-remaining'], undefined, 'a verified call charges no app')
  })

  test('OAuth 1.0a signed by the consumer alone, an app-only bearer token, an OAuth 2.0 user token: each its kind', async () => {
    const appOnly = await check({ uri: '/v1/public', authorization: signed('GET', '/v1/public', { consumer: issued.consumer }) })
    assert.equal(appOnly.statusCode, 204, appOnly.body)
    // Every header is sent, empty when the credential has none: a proxy then overwrites what the client sent.
    const nobody = { 'x-latchkey-user-id': '', 'x-latchkey-screen-name': '', 'x-latchkey-scopes': '' }
    assert.deepEqual(identity(appOnly), { ...nobody, 'x-latchkey-app-id': issued.app.id, 'x-latchkey-token-kind': 'oauth1_app', 'x-latchkey-access-level': 'read-write' })
    const bearer = await check({ uri: '/v1/public', authorization: `Bearer ${issued.bearer}` })
    assert.deepEqual(identity(bearer), { ...nobody, 'x-latchkey-app-id': issued.app.id, 'x-latchkey-token-kind': 'bearer', 'x-latchkey-access-level': 'read-write' })
    const user = await check({ uri: '/v1/me', authorization: `Bearer ${issued.userAccessToken}` })
    assert.equal(user.statusCode, 204, user.body)
    assert.deepEqual(identity(user), {
      'x-latchkey-app-id': issued.app.id,
      'x-latchkey-token-kind': 'oauth2_user',
      'x-latchkey-access-level': 'read',
      'x-latchkey-user-id': issued.user.id,
      'x-latchkey-screen-name': issued.user.screenName,
      'x-latchkey-scopes': 'users.read',
    })
  })

  test("a refusal is X's: status, body, WWW-Authenticate, and the same body in X-Latchkey-Error for nginx", async () => {
    const wrongUri = await check({ uri: '/v1/other', authorization: signed('GET', '/v1/notes') })
    assert.equal(wrongUri.statusCode, 401)
    assert.deepEqual(wrongUri.json(), { errors: [{ code: 32, message: 'Could not authenticate you.' }] })
    assert.equal(wrongUri.headers['www-authenticate'], 'OAuth realm="Latchkey"')
    assert.equal(wrongUri.headers['x-latchkey-error'], wrongUri.body)
    assert.equal(wrongUri.headers['x-latchkey-user-id'], undefined)
    assert.equal(wrongUri.headers['x-latchkey-reason'], undefined, 'no reason in production')

    const none = await check({ uri: '/v1/notes' })
    assert.equal(none.statusCode, 400)
    assert.deepEqual(JSON.parse(String(none.headers['x-latchkey-error'])), { errors: [{ code: 215, message: 'Bad Authentication data.' }] })
    const dead = await check({ uri: '/v1/notes', authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAnotatoken' })
    assert.deepEqual([dead.statusCode, dead.json().errors[0].code], [401, 89])
  })

  test('a replayed signed request is refused the second time: the nonce is spent once', async () => {
    const authorization = signed('GET', '/v1/once')
    assert.equal((await check({ uri: '/v1/once', authorization })).statusCode, 204)
    const again = await check({ uri: '/v1/once', authorization })
    assert.deepEqual([again.statusCode, again.json().errors[0].code], [401, 32])
  })

  test('an OAuth 1.0a request with a form body is refused with its reason, in production too; a bearer token with one passes', async () => {
    const form = 'application/x-www-form-urlencoded; charset=utf-8'
    const body = signRequest({ consumer: issued.consumer, token: issued.token, method: 'POST', url: `${API}/v1/notes`, body: { text: 'hello' } })
    const refused = await check({ method: 'POST', uri: '/v1/notes', authorization: body.headers.authorization!, contentType: form })
    assert.equal(refused.statusCode, 401)
    assert.deepEqual(refused.json(), { errors: [{ code: 32, message: 'Could not authenticate you.' }] })
    assert.equal(refused.headers['x-latchkey-reason'], FORM_BODY_REASON)
    assert.match(FORM_BODY_REASON, /form body/)
    // Signed over no body at all, it would pass: the form content type alone is the reason.
    const unsigned = await check({ method: 'POST', uri: '/v1/notes', authorization: signed('POST', '/v1/notes'), contentType: form })
    assert.equal(unsigned.headers['x-latchkey-reason'], FORM_BODY_REASON)
    const bearer = await check({ method: 'POST', uri: '/v1/notes', authorization: `Bearer ${issued.userAccessToken}`, contentType: form })
    assert.equal(bearer.statusCode, 204, bearer.body)
  })

  test('from an address not in --trust-proxy: 403 code 1010, and nothing is checked (the nonce stays unspent)', async () => {
    const authorization = signed('GET', '/v1/stranger')
    const refused = await check({ uri: '/v1/stranger', authorization }, { from: STRANGER })
    assert.equal(refused.statusCode, 403)
    assert.deepEqual(refused.json(), { errors: [{ code: 1010, message: 'Only a reverse proxy named in --trust-proxy may call this endpoint.' }] })
    assert.equal(refused.headers['x-latchkey-user-id'], undefined)
    // X-Forwarded-For naming a trusted address proves nothing: only the connection's peer counts.
    const forged = await check({ uri: '/v1/stranger', authorization }, { from: STRANGER, headers: { 'x-forwarded-for': PROXY } })
    assert.equal(forged.statusCode, 403)
    assert.equal((await check({ uri: '/v1/stranger', authorization })).statusCode, 204, 'the same request from the proxy: its nonce was never spent')
  })

  test('every method reaches it; the original method is the one checked', async () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const answer = await check({ method: 'DELETE', uri: '/v1/notes/1', authorization: signed('DELETE', '/v1/notes/1') }, { method })
      assert.equal(answer.statusCode, 204, `${method}: ${answer.body}`)
    }
    const noMethodHeader = await check({ uri: '/v1/notes/1', authorization: signed('PUT', '/v1/notes/1') }, { method: 'PUT', headers: { 'x-original-method': '' } })
    assert.equal(noMethodHeader.statusCode, 204, "without X-Original-Method, the call's own method")
  })

  test("a proxy that names no original URI, or two that disagree: 400 code 1000 saying what is missing", async () => {
    const answer = await t.app.inject({ method: 'GET', url: '/latchkey/forward-auth', remoteAddress: PROXY, headers: { 'x-forwarded-proto': 'https', authorization: `Bearer ${issued.bearer}` } })
    assert.equal(answer.statusCode, 400)
    assert.deepEqual(answer.json(), { errors: [{ code: 1000, message: 'Forward auth: the proxy sent neither X-Original-URI nor X-Forwarded-Uri.' }] })
    const forged = await check({ uri: '/v1/a', authorization: `Bearer ${issued.bearer}` }, { headers: { 'x-forwarded-uri': '/v1/b' } })
    assert.equal(forged.statusCode, 400)
  })

  test('a client that reached the proxy over plain HTTP gets X\'s 403 code 92 in production', async () => {
    const answer = await check({ uri: '/v1/notes', authorization: `Bearer ${issued.bearer}` }, { headers: { 'x-forwarded-proto': 'http' } })
    assert.deepEqual([answer.statusCode, answer.json().errors[0].code], [403, 92])
    assert.equal(answer.headers['x-latchkey-error'], answer.body)
  })
})
