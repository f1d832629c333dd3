// The OAuth 2.0 consent page, /i/oauth2/authorize (src/pages/oauth2-consent-routes.ts): each button,
// a refused sign-in, a forged form, a request the app got wrong, HEAD and the address limit.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { buildTestApp, type TestApp } from '../helpers/test-app.ts'
import { Browser, csrfOf } from '../helpers/browser.ts'

const REDIRECT = 'https://client.example/callback'
const PATH = '/i/oauth2/authorize'

describe('GET and POST /i/oauth2/authorize', () => {
  let t: TestApp
  before(async () => {
    t = await buildTestApp({ settings: { rateLimits: { '/i/oauth2/authorize': 1000 } } })
  })
  after(() => t.close())

  async function authorizeQuery(extra: Record<string, string> = {}) {
    const app = await makeApp(t.domain, { callbackUrls: [REDIRECT] })
    const change = await setOAuth2Client(t.domain, { appId: app.id, setting: 'public' })
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: change.client!.clientId,
      redirect_uri: REDIRECT,
      scope: 'tweet.read users.read',
      state: 'state-1',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'plain',
      ...extra,
    })
    return { app, query }
  }

  /** Opens the page and posts its form with these fields and the request's own. */
  async function press(browser: Browser, query: URLSearchParams, fields: Record<string, string>) {
    const page = await browser.get(`${PATH}?${query}`)
    assert.equal(page.statusCode, 200, page.body)
    return browser.post(PATH, [...query, ['csrf_token', csrfOf(page.body)], ...Object.entries(fields)] as Array<[string, string]>)
  }

  const codeOf = (location: unknown) => new URL(String(location)).searchParams.get('code')

  async function signedInBrowser() {
    const { user, password } = await makeUser(t.domain)
    const browser = new Browser(t.app)
    const { query } = await authorizeQuery()
    const answer = await press(browser, query, { action: 'allow', username: user.screenName, password })
    assert.equal(answer.statusCode, 302)
    return { user, password, browser }
  }

  test('signing in and allowing sends the code to the app; the page says who is asking and posts only home and to the app', async () => {
    const { user, password } = await makeUser(t.domain)
    const { app, query } = await authorizeQuery()
    const browser = new Browser(t.app)
    const page = await browser.get(`${PATH}?${query}`)
    assert.match(page.body, new RegExp(app.name))
    assert.match(page.body, /name="username" type="text" value=""/)
    assert.equal(/form-action ([^;]*)/.exec(String(page.headers['content-security-policy']))?.[1], "'self' https://client.example")
    assert.equal(/<title>([^<]*)<\/title>/.exec(page.body)?.[1], `Authorize ${app.name} · Latchkey`)
    const can = /This app will be able to:<\/h2>\n<ul>([\s\S]*?)<\/ul>/.exec(page.body)?.[1] ?? ''
    assert.deepEqual([...can.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => m[1]), ['See posts, including ones from protected accounts you follow.', 'See your profile and the profiles of other accounts.'])
    // The form carries the app's request, field by field, so the answer goes where the app asked.
    const hidden = new Map([...page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]))
    for (const [name, value] of query) assert.equal(hidden.get(name), value, name)
    const answer = await browser.post(PATH, [...query, ['csrf_token', csrfOf(page.body)], ['action', 'allow'], ['username', user.screenName], ['password', password]])
    assert.equal(answer.statusCode, 302)
    assert.match(codeOf(answer.headers.location) ?? '', /./)
    assert.equal(new URL(String(answer.headers.location)).searchParams.get('state'), 'state-1')
  })

  test('a refused sign-in shows the form again with the username typed (64 characters at most) and the reason; nothing is granted', async () => {
    const { query } = await authorizeQuery()
    const typed = `${'u'.repeat(64)}${'v'.repeat(10)}`
    const answer = await press(new Browser(t.app), query, { action: 'allow', username: typed, password: 'wrong' })
    assert.equal(answer.statusCode, 401)
    assert.match(answer.body, new RegExp(`name="username" type="text" value="${'u'.repeat(64)}"`))
    assert.match(answer.body, /The username or password is not right\./)
  })

  test('a signed-in person allows without typing the password; with force_login they are asked again', async () => {
    const { browser } = await signedInBrowser()
    const { query } = await authorizeQuery()
    const page = await browser.get(`${PATH}?${query}`)
    assert.match(page.body, /You are signed in as/)
    const answer = await browser.post(PATH, [...query, ['csrf_token', csrfOf(page.body)], ['action', 'allow']])
    assert.equal(answer.statusCode, 302)
    assert.ok(codeOf(answer.headers.location))
    const forced = await authorizeQuery({ force_login: 'true' })
    const forcedPage = await browser.get(`${PATH}?${forced.query}`)
    assert.doesNotMatch(forcedPage.body, /You are signed in as/)
    const asked = await browser.post(PATH, [...forced.query, ['csrf_token', csrfOf(forcedPage.body)], ['action', 'allow']])
    assert.equal(asked.statusCode, 401)
    assert.match(asked.body, /Please sign in to authorize this app\./)
  })

  test('allowing with no session and no password asks to sign in; nothing is granted', async () => {
    const { query } = await authorizeQuery()
    const answer = await press(new Browser(t.app), query, { action: 'allow' })
    assert.equal(answer.statusCode, 401)
    assert.match(answer.body, /Please sign in to authorize this app\./)
    assert.match(answer.body, /name="username" type="text" value=""/)
  })

  test('Cancel sends access_denied to the app, with its state, and records who said no', async () => {
    const { browser, user } = await signedInBrowser()
    const { query, app } = await authorizeQuery()
    const answer = await press(browser, query, { action: 'cancel' })
    const denied = (await t.domain.stores.audit.list({ appId: app.id })).filter((event) => event.event === 'consent.denied')
    assert.deepEqual(denied.map((event) => event.userId), [user.id])
    assert.equal(answer.statusCode, 302)
    const location = new URL(String(answer.headers.location))
    assert.equal(location.searchParams.get('error'), 'access_denied')
    assert.equal(location.searchParams.get('state'), 'state-1')
    // Signed out, Cancel works too.
    const again = await press(new Browser(t.app), (await authorizeQuery()).query, { action: 'cancel' })
    assert.equal(new URL(String(again.headers.location)).searchParams.get('error'), 'access_denied')
  })

  test('switching account signs out, here and on the server, and shows the sign-in form', async () => {
    const { browser } = await signedInBrowser()
    const copy = browser.copy()
    const { query } = await authorizeQuery()
    const switched = await press(browser, query, { action: 'switch' })
    assert.equal(switched.statusCode, 200)
    assert.match(switched.body, /name="password"/)
    assert.doesNotMatch(switched.body, /You are signed in as/)
    assert.doesNotMatch((await copy.get(`${PATH}?${query}`)).body, /You are signed in as/, 'the old cookie is signed out too')
  })

  test('an action that is no button is a 400 page; a form without the CSRF value a 403; neither grants anything', async () => {
    const { browser } = await signedInBrowser()
    const { query } = await authorizeQuery()
    const unknown = await press(browser, query, { action: 'approve' })
    assert.equal(unknown.statusCode, 400)
    const forged = await browser.post(PATH, [...query, ['action', 'allow']])
    assert.equal(forged.statusCode, 403)
    for (const answer of [unknown, forged]) assert.equal(answer.headers.location, undefined)
  })

  test('a request the app got wrong (an unknown scope) is sent back to the app, from the page and from the form', async () => {
    const { query } = await authorizeQuery({ scope: 'tweet.read made.up' })
    const page = await new Browser(t.app).get(`${PATH}?${query}`)
    assert.equal(page.statusCode, 302)
    assert.equal(new URL(String(page.headers.location)).searchParams.get('error'), 'invalid_scope')
    const good = await authorizeQuery()
    const browser = new Browser(t.app)
    const shown = await browser.get(`${PATH}?${good.query}`)
    const fields = [...good.query].map(([name, value]) => [name, name === 'scope' ? 'tweet.read made.up' : value] as [string, string])
    const posted = await browser.post(PATH, [...fields, ['csrf_token', csrfOf(shown.body)], ['action', 'allow']])
    assert.equal(posted.statusCode, 302)
    assert.equal(new URL(String(posted.headers.location)).searchParams.get('error'), 'invalid_scope')
  })

  test('HEAD is not a way to the page', async () => {
    const { query } = await authorizeQuery()
    const head = await t.app.inject({ method: 'HEAD', url: `${PATH}?${query}` })
    assert.equal(head.statusCode, 405)
    assert.equal(head.headers.location, undefined)
  })
})

describe('the OAuth 2.0 consent page rate limit', () => {
  test('opening and posting the page count against one limit per address', async (ctx) => {
    const t = await buildTestApp({ settings: { rateLimits: { '/i/oauth2/authorize': 2 } } })
    ctx.after(() => t.close())
    const app = await makeApp(t.domain, { callbackUrls: [REDIRECT] })
    const change = await setOAuth2Client(t.domain, { appId: app.id, setting: 'public' })
    const query = new URLSearchParams({ response_type: 'code', client_id: change.client!.clientId, redirect_uri: REDIRECT, scope: 'users.read', state: 's', code_challenge: 'c'.repeat(43), code_challenge_method: 'plain' })
    const browser = new Browser(t.app, '10.7.0.1')
    const page = await browser.get(`${PATH}?${query}`)
    assert.equal(page.statusCode, 200)
    assert.equal((await browser.post(PATH, [...query, ['csrf_token', csrfOf(page.body)], ['action', 'allow']])).statusCode, 401)
    const limited = await browser.get(`${PATH}?${query}`)
    assert.equal(limited.statusCode, 429)
    assert.equal((await new Browser(t.app, '10.7.0.2').get(`${PATH}?${query}`)).statusCode, 200)
  })
})
