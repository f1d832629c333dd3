import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AppRecord, AuditEventRecord, UserRecord } from '../../src/storage/records.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { Browser } from '../helpers/browser.ts'
import { consentInBrowser, outcomeOf } from '../helpers/consent-pages.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { send, signRequest, signedFetch } from '../helpers/oauth1-client.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'

// issue 6, "Audit trail": every issue, exchange, invalidation, sign-in, consent and denial through
// the real endpoints leaves one row naming the app, the person and the address, and no secret.

const FORM = 'application/x-www-form-urlencoded'
const CALLBACK = 'https://client.example/callback'
/** The address the trusted proxy (the test itself, on 127.0.0.1) says the client has. */
const FORWARDED = '203.0.113.7'
const basic = (app: AppRecord) => `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`

/** The events of an app, oldest first (the store lists newest first). */
async function eventsOf(server: TestServer, filter: { appId?: string; userId?: string }): Promise<AuditEventRecord[]> {
  return (await server.domain.stores.audit.list({ ...filter, limit: 10_000 })).reverse()
}

/** Events without their time, for deepEqual. */
const untimed = (events: AuditEventRecord[]) => events.map(({ atMs: _atMs, ...rest }) => rest)

describe('the audit trail of the HTTP endpoints', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ http: { trustProxy: ['127.0.0.1'] } })
  })
  after(() => server.close())

  const consumer = (app: AppRecord) => ({ key: app.consumerKey, secret: app.consumerSecret })

  async function requestToken(app: AppRecord, callback: string) {
    const answer = await signedFetch({
      consumer: consumer(app),
      url: `${server.url}/oauth/request_token`,
      oauth: { oauth_callback: callback },
      extraHeaders: { 'x-forwarded-for': FORWARDED },
    })
    assert.equal(answer.status, 200, answer.text)
    return { token: answer.form.oauth_token as string, secret: answer.form.oauth_token_secret as string }
  }

  async function exchange(app: AppRecord, rt: { token: string; secret: string }, verifier: string) {
    const answer = await signedFetch({
      consumer: consumer(app),
      token: { key: rt.token, secret: rt.secret },
      url: `${server.url}/oauth/access_token`,
      oauth: { oauth_verifier: verifier },
      extraHeaders: { 'x-forwarded-for': FORWARDED },
    })
    assert.equal(answer.status, 200, answer.text)
    return { token: answer.form.oauth_token as string, secret: answer.form.oauth_token_secret as string }
  }

  /** A fresh app with its owner, and a person who will authorize it, with no events but their creation. */
  async function setUp(settings: Parameters<typeof makeApp>[1] = {}) {
    const app = await makeApp(server.domain, { callbackUrls: [CALLBACK], ...settings })
    const person = await makeUser(server.domain)
    return { app, user: person.user, password: person.password }
  }

  test('request_token.issued names the app, the address and the callback origin, never its query', async () => {
    const { app } = await setUp()
    await requestToken(app, `${CALLBACK}?state=app-state-value`)
    await requestToken(app, 'oob')
    const events = untimed(await eventsOf(server, { appId: app.id })).filter((e) => e.event === 'request_token.issued')
    assert.deepEqual(events, [
      { event: 'request_token.issued', appId: app.id, userId: null, address: FORWARDED, detail: { callback: 'https://client.example', access_level: 'read-write' } },
      { event: 'request_token.issued', appId: app.id, userId: null, address: FORWARDED, detail: { callback: 'oob', access_level: 'read-write' } },
    ])
  })

  test('the web flow records sign-in, consent and the exchange; a second flow records the same token handed out again', async () => {
    const { app, user, password } = await setUp()
    const browser = new Browser()
    for (let round = 0; round < 2; round++) {
      const rt = await requestToken(app, CALLBACK)
      const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${rt.token}`, { username: user.screenName, password }, { browser })
      assert.equal(outcome.kind, 'redirect')
      await exchange(app, rt, (outcome as { query: URLSearchParams }).query.get('oauth_verifier') as string)
    }
    const events = untimed(await eventsOf(server, { userId: user.id }))
    const consent = { callback: 'https://client.example', access_level: 'read-write', flow: 'authorize', automatic: false }
    assert.deepEqual(events.slice(1), [
      { event: 'sign_in.succeeded', appId: app.id, userId: user.id, address: '127.0.0.1', detail: null },
      { event: 'consent.granted', appId: app.id, userId: user.id, address: '127.0.0.1', detail: consent },
      { event: 'access_token.issued', appId: app.id, userId: user.id, address: FORWARDED, detail: { access_level: 'read-write', via: 'exchange', reused: false } },
      { event: 'sign_in.succeeded', appId: app.id, userId: user.id, address: '127.0.0.1', detail: null },
      { event: 'consent.granted', appId: app.id, userId: user.id, address: '127.0.0.1', detail: consent },
      { event: 'access_token.issued', appId: app.id, userId: user.id, address: FORWARDED, detail: { access_level: 'read-write', via: 'exchange', reused: true } },
    ])
    assert.equal(events[0]?.event, 'user.created')
  })

  test('authenticate sending a returning person straight back is recorded as an automatic consent', async () => {
    const { app, user, password } = await setUp({ isSignInEnabled: true })
    const browser = new Browser()
    const first = await requestToken(app, CALLBACK)
    const outcome = await consentInBrowser(`${server.url}/oauth/authenticate?oauth_token=${first.token}`, { username: user.screenName, password }, { browser })
    await exchange(app, first, (outcome as { query: URLSearchParams }).query.get('oauth_verifier') as string)
    const second = await requestToken(app, CALLBACK)
    const again = outcomeOf(await browser.get(`${server.url}/oauth/authenticate?oauth_token=${second.token}`))
    assert.equal(again.kind, 'redirect')
    const consents = (await eventsOf(server, { userId: user.id })).filter((e) => e.event === 'consent.granted')
    assert.deepEqual(consents.map((e) => [e.detail?.flow, e.detail?.automatic]), [['authenticate', false], ['authenticate', true]])
  })

  test('the PIN flow records a consent to an oob callback', async () => {
    const { app, user, password } = await setUp()
    const rt = await requestToken(app, 'oob')
    const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${rt.token}`, { username: user.screenName, password })
    assert.equal(outcome.kind, 'pin')
    const [consent] = (await eventsOf(server, { userId: user.id })).filter((e) => e.event === 'consent.granted')
    assert.equal(consent?.appId, app.id)
    assert.equal(consent?.detail?.callback, 'oob')
  })

  test('Cancel records consent.denied, without a sign-in', async () => {
    const { app, user, password } = await setUp()
    const rt = await requestToken(app, CALLBACK)
    const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${rt.token}`, { username: user.screenName, password }, { action: 'cancel' })
    assert.equal(outcome.kind, 'redirect')
    const events = untimed(await eventsOf(server, { appId: app.id })).filter((e) => e.event.startsWith('consent') || e.event.startsWith('sign_in'))
    const detail = { flow: 'authorize', access_level: 'read-write', callback: 'https://client.example' }
    assert.deepEqual(events, [{ event: 'consent.denied', appId: app.id, userId: null, address: '127.0.0.1', detail }])
  })

  test('access_token.invalidated names the token owner and the address', async () => {
    const { app, user, password } = await setUp()
    const rt = await requestToken(app, CALLBACK)
    const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${rt.token}`, { username: user.screenName, password })
    const access = await exchange(app, rt, (outcome as { query: URLSearchParams }).query.get('oauth_verifier') as string)
    const answer = await signedFetch({
      consumer: consumer(app),
      token: { key: access.token, secret: access.secret },
      url: `${server.url}/1.1/oauth/invalidate_token`,
      extraHeaders: { 'x-forwarded-for': FORWARDED },
    })
    assert.equal(answer.status, 200, answer.text)
    const last = untimed(await eventsOf(server, { appId: app.id })).at(-1)
    assert.deepEqual(last, { event: 'access_token.invalidated', appId: app.id, userId: user.id, address: FORWARDED, detail: { access_level: 'read-write' } })
  })

  test('bearer_token.issued on every hand-out (new, then reused) and bearer_token.invalidated with how the app proved itself', async () => {
    const { app } = await setUp()
    const call = (path: string, body: string) =>
      send({ method: 'POST', url: `${server.url}${path}`, headers: { authorization: basic(app), 'content-type': FORM, 'x-forwarded-for': FORWARDED }, body })
    const first = await call('/oauth2/token', 'grant_type=client_credentials')
    const second = await call('/oauth2/token', 'grant_type=client_credentials')
    assert.equal(first.json.access_token, second.json.access_token)
    // A repeat is counted into its app's row of the minute (hand-out-tally.ts): written now.
    await server.domain.handOuts.flush({ all: true })
    const invalidated = await call('/oauth2/invalidate_token', `access_token=${encodeURIComponent(first.json.access_token)}`)
    assert.equal(invalidated.status, 200, invalidated.text)
    const events = untimed(await eventsOf(server, { appId: app.id })).filter((e) => e.event.startsWith('bearer_token'))
    assert.deepEqual(events, [
      { event: 'bearer_token.issued', appId: app.id, userId: null, address: FORWARDED, detail: { reused: false } },
      { event: 'bearer_token.issued', appId: app.id, userId: null, address: FORWARDED, detail: { reused: true, count: 1 } },
      { event: 'bearer_token.invalidated', appId: app.id, userId: null, address: FORWARDED, detail: { via: 'basic' } },
    ])
  })

  test('bearer_token.invalidated signed with OAuth 1.0a names the owner who signed it', async () => {
    const { app } = await setUp()
    const issued = await send({
      method: 'POST',
      url: `${server.url}/oauth2/token`,
      headers: { authorization: basic(app), 'content-type': FORM },
      body: 'grant_type=client_credentials',
    })
    const { token } = await issueOwnerToken(server.domain, app.id)
    const invalidated = await signedFetch({
      consumer: consumer(app),
      token: { key: token.token, secret: token.secret },
      url: `${server.url}/oauth2/invalidate_token?access_token=${encodeURIComponent(issued.json.access_token)}`,
      extraHeaders: { 'x-forwarded-for': FORWARDED },
    })
    assert.equal(invalidated.status, 200, invalidated.text)
    const last = untimed(await eventsOf(server, { appId: app.id })).at(-1)
    assert.deepEqual(last, { event: 'bearer_token.invalidated', appId: app.id, userId: app.ownerId, address: FORWARDED, detail: { via: 'oauth1' } })
  })

  test('refused token requests record nothing', async () => {
    const { app } = await setUp()
    const before = await eventsOf(server, { appId: app.id })
    const refused = [
      await signedFetch({ consumer: { key: app.consumerKey, secret: 'wrong' }, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } }),
      await send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { authorization: 'Basic !!!', 'content-type': FORM }, body: 'grant_type=client_credentials' }),
      await signedFetch({ consumer: consumer(app), token: { key: 'unknown', secret: 'x' }, url: `${server.url}/oauth/access_token`, oauth: { oauth_verifier: '1' } }),
    ]
    assert.deepEqual(refused.map((answer) => answer.status >= 400), [true, true, true])
    assert.deepEqual(await eventsOf(server, { appId: app.id }), before)
  })

  test('no issued value, secret, password or signature appears in any audit row', async () => {
    const { app, user, password } = await setUp()
    const issued: string[] = [app.consumerKey, app.consumerSecret, password]
    const webToken = await requestToken(app, `${CALLBACK}?state=state-of-the-app`)
    const web = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${webToken.token}`, { username: user.screenName, password })
    const verifier = (web as { query: URLSearchParams }).query.get('oauth_verifier') as string
    const exchangeRequest = signRequest({
      consumer: consumer(app),
      token: { key: webToken.token, secret: webToken.secret },
      url: `${server.url}/oauth/access_token`,
      oauth: { oauth_verifier: verifier },
    })
    const access = (await send(exchangeRequest)).form
    const pinToken = await requestToken(app, 'oob')
    const pin = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${pinToken.token}`, { username: user.screenName, password })
    assert.equal(pin.kind, 'pin')
    const bearer = await send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { authorization: basic(app), 'content-type': FORM }, body: 'grant_type=client_credentials' })
    const invalidation = signRequest({
      consumer: consumer(app),
      token: { key: access.oauth_token as string, secret: access.oauth_token_secret as string },
      url: `${server.url}/1.1/oauth/invalidate_token`,
    })
    assert.equal((await send(invalidation)).status, 200)
    const failedPassword = 'not-the-password-but-close'
    await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${(await requestToken(app, 'oob')).token}`, { username: user.screenName, password: failedPassword })
    issued.push(
      webToken.token,
      webToken.secret,
      verifier,
      'state-of-the-app',
      access.oauth_token as string,
      access.oauth_token_secret as string,
      pinToken.token,
      pinToken.secret,
      bearer.json.access_token,
      decodeURIComponent(bearer.json.access_token),
      exchangeRequest.oauthParams.oauth_signature as string,
      invalidation.oauthParams.oauth_signature as string,
      failedPassword,
    )
    assert.ok(issued.every((value) => typeof value === 'string' && value.length >= 8), 'every value was really issued')

    const rows = JSON.stringify(await server.domain.stores.audit.list({ limit: 10_000 }))
    for (const value of issued) assert.ok(!rows.includes(value), `an audit row holds an issued value (${value.slice(0, 4)}…)`)
    // The PIN is 7 digits: looked for as a number of its own, not inside a timestamp or an id.
    assert.doesNotMatch(rows, new RegExp(`(?<!\\d)${pin.kind === 'pin' ? pin.pin : 'x'}(?!\\d)`))
    assert.ok((await eventsOf(server, { appId: app.id })).length >= 8, 'the flows were recorded')
  })
})

describe('the audit trail of sign-in failures', () => {
  let server: TestServer
  let app: AppRecord
  let user: UserRecord
  before(async () => {
    server = await startTestServer({ settings: { signInMaxFailures: 2 } })
    app = await makeApp(server.domain, { callbackUrls: [CALLBACK] })
    user = (await makeUser(server.domain)).user
  })
  after(() => server.close())

  async function signInWith(username: string, password: string) {
    const answer = await signedFetch({
      consumer: { key: app.consumerKey, secret: app.consumerSecret },
      url: `${server.url}/oauth/request_token`,
      oauth: { oauth_callback: 'oob' },
    })
    const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${answer.form.oauth_token}`, { username, password })
    assert.equal(outcome.kind, 'page')
    return outcome.kind === 'page' ? outcome.page.statusCode : 0
  }

  test('a wrong password names the account, an unknown one does not, and throttled attempts say so; nothing typed is kept', async () => {
    assert.equal(await signInWith(user.screenName, 'wrong-password-1'), 401)
    assert.equal(await signInWith('no_such_person', 'wrong-password-2'), 401)
    assert.equal(await signInWith(user.screenName, 'wrong-password-3'), 429)
    const failures = untimed((await eventsOf(server, { appId: app.id })).filter((e) => e.event === 'sign_in.failed'))
    assert.deepEqual(failures, [
      { event: 'sign_in.failed', appId: app.id, userId: user.id, address: '127.0.0.1', detail: { reason: 'credentials' } },
      { event: 'sign_in.failed', appId: app.id, userId: null, address: '127.0.0.1', detail: { reason: 'credentials' } },
      { event: 'sign_in.failed', appId: app.id, userId: null, address: '127.0.0.1', detail: { reason: 'throttled' } },
    ])
    assert.doesNotMatch(JSON.stringify(failures), /wrong-password|no_such_person/)
  })
})
