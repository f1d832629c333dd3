import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { updateApp } from '../../src/domain/registry/apps.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { errorCode, signRequest, type SignOptions } from '../helpers/oauth1-client.ts'
import { countRows, injectedTestServer, type TestServer } from '../helpers/test-app.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'

// service-spec §4.1 and the rules for POST /oauth/request_token.
describe('POST /oauth/request_token', () => {
  let server: TestServer
  let app: AppRecord
  let desktop: AppRecord
  const CALLBACK = 'https://client.example/callback'

  before(async () => {
    server = await injectedTestServer()
    app = await makeApp(server.domain, { callbackUrls: [CALLBACK, 'myapp://auth/done'] })
    desktop = await makeApp(server.domain, { type: 'desktop', callbackUrls: [] })
  })
  after(() => server.close())

  const consumerOf = (a: AppRecord) => ({ key: a.consumerKey, secret: a.consumerSecret })
  const requestToken = (overrides: Partial<SignOptions> = {}) =>
    server.signedFetch({ consumer: consumerOf(app), url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: CALLBACK }, ...overrides })

  test('answers a signed request with a form-encoded request token, confirmed callback last (C26)', async () => {
    const answer = await requestToken()
    assert.equal(answer.status, 200)
    assert.equal(answer.headers.get('content-type'), 'application/x-www-form-urlencoded')
    assert.match(answer.text, /^oauth_token=[A-Za-z0-9_-]{27}&oauth_token_secret=[A-Za-z0-9]{32}&oauth_callback_confirmed=true$/)
    const stored = await server.domain.stores.requestTokens.findByToken(answer.form.oauth_token!)
    assert.equal(stored?.callback, CALLBACK)
    assert.equal(stored?.status, 'issued')
  })

  test('accepts oob for a web app and for a desktop app', async () => {
    assert.equal((await requestToken({ oauth: { oauth_callback: 'oob' } })).status, 200)
    const answer = await server.signedFetch({ consumer: consumerOf(desktop), url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    assert.equal(answer.status, 200)
    assert.equal(answer.form.oauth_callback_confirmed, 'true')
  })

  test('accepts a registered callback with its own query parameters added, and a custom scheme (C23)', async () => {
    const answer = await requestToken({ oauth: { oauth_callback: `${CALLBACK}?state=abc&x=1` } })
    assert.equal(answer.status, 200)
    const stored = await server.domain.stores.requestTokens.findByToken(answer.form.oauth_token!)
    assert.equal(stored?.callback, `${CALLBACK}?state=abc&x=1`)
    assert.equal((await requestToken({ oauth: { oauth_callback: 'myapp://auth/done' } })).status, 200)
  })

  test('refuses a callback that is not registered with 403 code 415 and issues nothing (C23)', async () => {
    for (const callback of ['https://evil.example/callback', 'https://client.example/other', 'http://client.example/callback', 'https://client.example:8443/callback']) {
      const answer = await requestToken({ oauth: { oauth_callback: callback } })
      assert.equal(answer.status, 403, callback)
      assert.equal(errorCode(answer), 415)
      await assertRefusedOnlyWhenBroken((variant) => requestToken({ oauth: { oauth_callback: variant === 'broken' ? callback : CALLBACK } }), { status: 403, code: 415 })
      assert.equal(
        answer.json.errors[0].message,
        'Callback URL not approved for this client application. Approved callback URLs can be adjusted in your application settings',
      )
    }
  })

  test('refuses a URL callback for a desktop app with 401 code 417', async () => {
    const answer = await server.signedFetch({ consumer: consumerOf(desktop), url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: CALLBACK } })
    assert.equal(errorCode(answer), 417)
    await assertRefusedOnlyWhenBroken(
      (variant) => server.signedFetch({ consumer: consumerOf(desktop), url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: variant === 'broken' ? CALLBACK : 'oob' } }),
      { status: 401, code: 417 },
    )
    assert.equal(answer.json.errors[0].message, "Desktop applications only support the oauth_callback value 'oob'")
  })

  test('refuses a missing or empty oauth_callback with 400 code 215 naming it (C19)', async () => {
    for (const oauth of [{}, { oauth_callback: "" }] as Array<Record<string, string>>) {
      const answer = await requestToken({ oauth })
      assert.match(answer.json.errors[0].message, /oauth_callback/)
      await assertRefusedOnlyWhenBroken((variant) => requestToken({ oauth: variant === 'broken' ? oauth : { oauth_callback: 'oob' } }), { status: 400, code: 215 })
    }
  })

  test('takes oauth_callback from the query or the body too, and once when repeated with the same value (C5)', async () => {
    const inQuery = await server.signedFetch({
      consumer: consumerOf(app),
      url: `${server.url}/oauth/request_token?oauth_callback=oob`,
    })
    assert.equal(inQuery.status, 200)
    const inBody = await server.signedFetch({ consumer: consumerOf(app), url: `${server.url}/oauth/request_token`, body: { oauth_callback: 'oob' } })
    assert.equal(inBody.status, 200)
    // The oauth-1.0a README pattern: oauth_callback in the header and in the body.
    const signed = signRequest({ consumer: consumerOf(app), url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    const both = await server.send({ ...signed, headers: { ...signed.headers, 'content-type': 'application/x-www-form-urlencoded' }, body: 'oauth_callback=oob' })
    assert.equal(both.status, 200)
  })

  test('refuses the same oauth_ parameter with two different values with 400 code 215 (C5, C7)', async () => {
    const signed = signRequest({ consumer: consumerOf(app), url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    const answer = await server.send({ ...signed, headers: { ...signed.headers, 'content-type': 'application/x-www-form-urlencoded' }, body: `oauth_callback=${encodeURIComponent(CALLBACK)}` })
    assert.equal(answer.status, 400)
    assert.equal(errorCode(answer), 215)
    const twiceInQuery = await server.send({ ...signed, url: `${signed.url}?oauth_nonce=a&oauth_nonce=b` })
    assert.equal(errorCode(twiceInQuery), 215)
    // Sent as signed, with each parameter once, the same request is accepted (neither refusal spent its nonce).
    assert.equal((await server.send(signed)).status, 200)
  })

  test('refuses a non-ASCII nonce with 400 code 215 (C17)', async () => {
    await assertRefusedOnlyWhenBroken((variant) => requestToken({ nonce: `${variant === 'broken' ? 'nönce' : 'nonce'}-${Math.random()}` }), { status: 400, code: 215 })
  })

  test('lets svc_auth_access_type or x_auth_access_type lower the access level but never raise it', async () => {
    const readApp = await makeApp(server.domain, { accessLevel: 'read' })
    const dmApp = await makeApp(server.domain, { accessLevel: 'read-write-directmessages' })
    const cases: Array<[AppRecord, string, string, string]> = [
      [app, 'x_auth_access_type', 'read', 'read'],
      [app, 'svc_auth_access_type', 'write', 'read-write'],
      [readApp, 'x_auth_access_type', 'write', 'read'],
      [dmApp, 'x_auth_access_type', 'write', 'read-write'],
      [dmApp, 'svc_auth_access_type', 'read', 'read'],
    ]
    for (const [target, name, value, expected] of cases) {
      const answer = await server.signedFetch({
        consumer: consumerOf(target),
        url: `${server.url}/oauth/request_token?${name}=${value}`,
        oauth: { oauth_callback: 'oob' },
      })
      assert.equal(answer.status, 200)
      const stored = await server.domain.stores.requestTokens.findByToken(answer.form.oauth_token!)
      assert.equal(stored?.accessLevel, expected, `${target.accessLevel} + ${name}=${value}`)
    }
    const inBody = await server.signedFetch({ consumer: consumerOf(dmApp), url: `${server.url}/oauth/request_token`, body: { x_auth_access_type: 'read' }, oauth: { oauth_callback: 'oob' } })
    assert.equal((await server.domain.stores.requestTokens.findByToken(inBody.form.oauth_token!))?.accessLevel, 'read')
    // As the spec shows it: in the Authorization header (oauth-1.0a signs it but only sends oauth_ names).
    const signed = signRequest({ consumer: consumerOf(dmApp), url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob', svc_auth_access_type: 'read' } })
    const inHeader = await server.send({ ...signed, headers: { authorization: `${signed.headers.authorization}, svc_auth_access_type="read"` } })
    assert.equal((await server.domain.stores.requestTokens.findByToken(inHeader.form.oauth_token!))?.accessLevel, 'read')
  })

  test('an unknown consumer key or a wrong consumer secret gets 401 code 32 (C21, C24)', async () => {
    const unknown = await requestToken({ consumer: { key: 'nosuchconsumerkey000000000', secret: 'x' } })
    assert.equal(unknown.json.errors[0].message, 'Could not authenticate you.')
    await assertRefusedOnlyWhenBroken(
      (variant) => requestToken({ consumer: variant === 'broken' ? { key: 'nosuchconsumerkey000000000', secret: app.consumerSecret } : consumerOf(app) }),
      { status: 401, code: 32 },
    )
    await assertRefusedOnlyWhenBroken(
      (variant) => requestToken({ consumer: { key: app.consumerKey, secret: variant === 'broken' ? 'wrong' : app.consumerSecret } }),
      { status: 401, code: 32 },
    )
  })

  test('a suspended app gets 401 code 416', async () => {
    const suspended = await makeApp(server.domain)
    await assertRefusedOnlyWhenBroken(async (variant) => {
      await updateApp(server.domain, suspended.id, { isSuspended: variant === 'broken' })
      return server.signedFetch({ consumer: consumerOf(suspended), url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    }, { status: 401, code: 416 })
  })

  test('GET is refused with 405 and an Allow header', async () => {
    const answer = await requestToken({ method: 'GET' })
    assert.equal(answer.status, 405)
    assert.equal(answer.headers.get('allow'), 'POST')
  })

  test('issues nothing on any error', async () => {
    const before = await countRows(server.dbPath, 'request_tokens')
    const failures = await Promise.all([
      requestToken({ oauth: {} }),
      requestToken({ oauth: { oauth_callback: 'https://evil.example/' } }),
      requestToken({ consumer: { key: app.consumerKey, secret: 'wrong' } }),
      requestToken({ timestamp: Math.floor(Date.now() / 1000) - 3600 }),
      requestToken({ nonce: 'ü' }),
    ])
    assert.deepEqual(failures.map((f) => f.status), [400, 403, 401, 401, 400])
    assert.equal(await countRows(server.dbPath, 'request_tokens'), before)
  })
})
