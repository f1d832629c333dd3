import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { errorCode } from '../../helpers/oauth1-client.ts'
import { MAX_APPS_PER_OWNER, createApp, updateApp } from '../../../src/domain/registry/apps.ts'
import { APPS_PER_PAGE } from '../../../src/domain/console/owned-apps.ts'
import { injectedTestServer, type TestServer } from '../../helpers/test-app.ts'
import { SERVICE_LIMITS } from '../../../src/domain/rate-limit-table.ts'
import { Browser, csrfOf, textOf } from '../../helpers/browser.ts'
import { assertRefusedOnlyWhenBroken } from '../../helpers/refusal.ts'

let address = 0
/** Each browser from its own address, so the per-address page budget of one test leaves the others alone. */
const nextAddress = () => `10.44.${Math.floor(++address / 250)}.${address % 250}`

describe('developer console', () => {
  let t: TestServer
  before(async () => {
    t = await injectedTestServer({ http: { allowSignup: true } })
  })
  after(() => t.close())

  const browser = () => new Browser(t.app, nextAddress())

  async function signedIn(): Promise<{ browser: Browser; user: Awaited<ReturnType<typeof makeUser>>['user'] }> {
    const { user, password } = await makeUser(t.domain)
    const b = browser()
    const answer = await b.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })
    assert.equal(answer.statusCode, 302)
    return { browser: b, user }
  }

  async function createThroughForm(b: Browser, fields: Record<string, string>) {
    return b.fill('/console/apps/new', '/console/apps', {
      name: 'My App',
      description: '',
      website: '',
      callbacks: 'https://client.example/callback',
      type: 'web',
      access_level: 'read-write',
      ...fields,
    })
  }

  test('signed out, /console is the sign-in form with username and password; it answers with the pages\' security headers', async () => {
    const answer = await browser().get('/console')
    assert.equal(answer.statusCode, 200)
    assert.match(answer.body, /name="username"/)
    assert.match(answer.body, /name="password"/)
    assert.equal(answer.headers['cache-control'], 'no-store')
    assert.equal(answer.headers['x-content-type-options'], 'nosniff')
    assert.equal(answer.headers['referrer-policy'], 'no-referrer')
    assert.match(String(answer.headers['content-security-policy']), /frame-ancestors 'none'/)
    assert.match(String(answer.headers['content-security-policy']), /form-action 'self'/)
    const cookie = answer.cookies.find((c) => c.name === 'latchkey_session')
    assert.equal(cookie?.httpOnly, true)
    assert.equal(cookie?.sameSite, 'Lax')
    assert.equal(cookie?.path, '/')
  })

  test('sign-up: a bad password shows the form again with the reason and creates nobody; a good one signs the person in', async () => {
    const b = browser()
    const screenName = `dev${Date.now() % 1_000_000}`
    const bad = await b.fill('/console/signup', '/console/signup', { screen_name: screenName, name: 'Dev', password: 'short' })
    assert.equal(bad.statusCode, 400)
    assert.match(bad.body, /password must be 8 to 1024 characters/)
    assert.match(bad.body, new RegExp(`name="screen_name" type="text" value="${screenName}"`))
    assert.equal(await t.domain.stores.users.findByScreenName(screenName), undefined)

    const good = await b.fill('/console/signup', '/console/signup', { screen_name: screenName, name: 'Dev', password: 'a good password' })
    assert.equal(good.statusCode, 302)
    assert.equal(good.headers.location, '/console')
    const home = await b.get('/console')
    assert.match(home.body, /<h1>Your apps<\/h1>/)
    assert.match(home.body, new RegExp(`@${screenName}`))
    const user = await t.domain.stores.users.findByScreenName(screenName)
    assert.ok(user)
    const [row] = await t.domain.stores.listings.auditPage({ limit: 1, userId: user.id, event: 'user.created' })
    assert.equal(row?.detail?.actor, 'sign_up')
  })

  test('a taken screen name is refused with 409 on the form', async () => {
    const { user } = await makeUser(t.domain)
    const answer = await browser().fill('/console/signup', '/console/signup', { screen_name: user.screenName, name: 'X', password: 'a good password' })
    assert.equal(answer.statusCode, 409)
    assert.match(answer.body, /is already taken/)
  })

  test('sign-in: a wrong password is a 401 form with the message; the right one renews the session and goes to the page asked for', async () => {
    const { user, password } = await makeUser(t.domain)
    const b = browser()
    const wrong = await b.fill('/console', '/console/sign-in', { username: user.screenName, password: 'wrong-password', next: '/settings/connected_apps' })
    assert.equal(wrong.statusCode, 401)
    assert.match(wrong.body, /The username or password is not right\./)
    const before = b.cookies.get('latchkey_session')
    const right = await b.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/settings/connected_apps' })
    assert.equal(right.statusCode, 302)
    assert.equal(right.headers.location, '/settings/connected_apps')
    assert.notEqual(b.cookies.get('latchkey_session'), before)
  })

  test('sign-in never redirects off the site', async () => {
    const { user, password } = await makeUser(t.domain)
    for (const next of ['https://evil.example/', '//evil.example', '/console/../oauth', '/consolex']) {
      const answer = await browser().fill('/console', '/console/sign-in', { username: user.screenName, password, next })
      assert.equal(answer.headers.location, '/console', next)
    }
  })

  test('create an app: the browser lands on its page, which shows key and secret this once; the audit row names the person', async () => {
    const { browser: b, user } = await signedIn()
    const created = await createThroughForm(b, { sign_in: 'on', type: 'desktop', callbacks: 'https://a.example/cb\r\n\r\nmyapp://cb\n' })
    assert.equal(created.statusCode, 302)
    const location = String(created.headers.location)
    const id = /^\/console\/apps\/(\d+)$/.exec(location)?.[1]
    assert.ok(id, location)
    const app = await t.domain.stores.apps.findById(id)
    assert.ok(app)
    assert.equal(app.ownerId, user.id)
    assert.equal(app.type, 'desktop')
    assert.equal(app.isSignInEnabled, true)
    assert.deepEqual(app.callbackUrls, ['https://a.example/cb', 'myapp://cb'])

    // Every cookie the browser holds before the page is shown, saved to be sent again afterwards.
    const saved = new Map(b.cookies)
    const first = await b.get(location)
    assert.equal(first.statusCode, 200)
    assert.equal(first.headers['cache-control'], 'no-store')
    assert.equal(textOf(first.body, 'consumer_key'), app.consumerKey)
    assert.equal(textOf(first.body, 'consumer_secret'), app.consumerSecret)
    assert.match(first.body, /not shown again/)
    const again = await b.get(location)
    assert.equal(textOf(again.body, 'consumer_secret'), undefined)
    assert.doesNotMatch(again.body, new RegExp(app.consumerSecret))
    const replayed = await t.app.inject({ method: 'GET', url: location, remoteAddress: b.address, cookies: Object.fromEntries(saved) })
    assert.equal(replayed.statusCode, 200)
    assert.doesNotMatch(replayed.body, new RegExp(app.consumerSecret), 'the saved cookies, sent again within the 5 minutes, do not show it again')

    const [row] = await t.domain.stores.listings.auditPage({ limit: 1, appId: id, event: 'app.created' })
    assert.equal(row?.detail?.actor, `user:${user.id}`)
    const list = await b.get('/console')
    assert.match(list.body, new RegExp(`<a href="/console/apps/${id}">My App</a>`))
  })

  test(`past ${MAX_APPS_PER_OWNER} apps the form says so and creates nothing; the list shows every app, ${APPS_PER_PAGE} a page`, async () => {
    const { browser: b, user } = await signedIn()
    const template = await makeApp(t.domain, { owner: user, name: 'App 1' })
    for (let i = 2; i <= MAX_APPS_PER_OWNER; i++) {
      assert.ok(await t.domain.stores.apps.create({ ...template, id: t.domain.newId(), name: `App ${i}`, consumerKey: `${template.consumerKey}${i}` }))
    }
    const refused = await createThroughForm(b, { name: 'One too many' })
    assert.equal(refused.statusCode, 400)
    assert.match(refused.body, /a developer may own at most 100 apps/)
    assert.equal((await t.domain.stores.listings.appsPage({ ownerId: user.id, limit: 1000 })).length, MAX_APPS_PER_OWNER)

    // An operator registered one more (the admin API's beyond_app_limit): the console lists it on a second page.
    const beyond = await createApp(t.domain, { name: 'Beyond', owner: user.id }, { beyondAppLimit: true })
    const first = await b.get('/console')
    assert.equal(first.body.match(/href="\/console\/apps\/\d+"/g)?.length, APPS_PER_PAGE)
    const more = /href="(\/console\?after=\d+)">More apps</.exec(first.body)
    assert.ok(more, 'a link to the next page')
    const second = await b.get(more[1]!)
    assert.equal(second.statusCode, 200)
    assert.deepEqual(second.body.match(/href="\/console\/apps\/\d+"/g), [`href="/console/apps/${beyond.id}"`])
    assert.doesNotMatch(second.body, /More apps/)
    assert.match(second.body, /href="\/console">First page</)
  })

  test('a bad callback URL shows the form again with the reason and the values typed; nothing is created', async () => {
    const { browser: b, user } = await signedIn()
    const answer = await createThroughForm(b, { name: 'Kept Name', callbacks: 'not a url' })
    assert.equal(answer.statusCode, 400)
    assert.match(answer.body, /class="alert" role="alert"/)
    assert.match(answer.body, /value="Kept Name"/)
    assert.match(answer.body, />not a url<\/textarea>/)
    assert.equal((await t.domain.stores.listings.appsPage({ ownerId: user.id, limit: 10 })).length, 0)
  })

  test('every bad field of the form is reported at once, not only the first; nothing is created', async () => {
    const { browser: b, user } = await signedIn()
    const answer = await createThroughForm(b, { name: '', website: 'ftp://files.example', callbacks: 'not a url' })
    assert.equal(answer.statusCode, 400)
    for (const reason of [/app name must be 1 to 64 characters/, /website must be an http:\/\/ or https:\/\/ URL/, /callback/i]) assert.match(answer.body, reason)
    assert.equal((await t.domain.stores.listings.appsPage({ ownerId: user.id, limit: 10 })).length, 0)
  })

  test('an app name the developer already uses, in any case, is refused with 409 on the form, on create and on edit', async () => {
    const { browser: b, user } = await signedIn()
    assert.equal((await createThroughForm(b, { name: 'Weather' })).statusCode, 302)
    const twin = await createThroughForm(b, { name: 'WEATHER' })
    assert.equal(twin.statusCode, 409)
    assert.match(twin.body, /class="alert" role="alert"[^>]*>[^<]*already has an app named WEATHER/)
    const location = String((await createThroughForm(b, { name: 'Tides' })).headers.location)
    const renamed = await b.fill(location, location, { name: 'weather', description: '', website: '', callbacks: 'https://client.example/callback', type: 'web', access_level: 'read-write' })
    assert.equal(renamed.statusCode, 409)
    assert.match(renamed.body, /already has an app named weather/)
    const names = (await t.domain.stores.listings.appsPage({ ownerId: user.id, limit: 10 })).map((a) => a.name).sort()
    assert.deepEqual(names, ['Tides', 'Weather'])
  })

  test('what the app page shows is escaped; a website that is not http(s) is text, not a link', async () => {
    const { browser: b } = await signedIn()
    const created = await createThroughForm(b, {
      name: '<script>alert(1)</script>',
      description: '"><img src=x onerror=alert(1)>',
      website: 'https://x.example/"><b>y',
      callbacks: 'myapp://cb/"><i>z',
    })
    assert.equal(created.statusCode, 302, created.body)
    const page = await b.get(String(created.headers.location))
    assert.doesNotMatch(page.body, /<script>alert/)
    assert.doesNotMatch(page.body, /<img src=x/)
    assert.doesNotMatch(page.body, /<b>y/)
    assert.doesNotMatch(page.body, /<i>z/)
    assert.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/)
    assert.match(page.body, /<td><code>myapp:\/\/cb\/%22%3E%3Ci%3Ez<\/code><br><\/td>/, 'a callback is text, never a link')
    const list = await b.get('/console')
    assert.doesNotMatch(list.body, /<script>alert/)
  })

  test("an operator's suspension: the page says so and has no Unsuspend button; a forged unsuspend is refused with the reason and changes nothing", async () => {
    const { browser: b } = await signedIn()
    const location = String((await createThroughForm(b, {})).headers.location)
    const id = location.split('/').pop() as string
    await updateApp(t.domain, id, { isSuspended: true })
    const page = await b.get(location)
    assert.match(page.body, /Suspended by the operator/)
    assert.doesNotMatch(page.body, /id="unsuspend_app"/)
    const forged = await b.post(`${location}/unsuspend`, { csrf_token: csrfOf(page.body) })
    assert.equal(forged.statusCode, 400)
    assert.match(forged.body, /an operator suspended this app: only an operator can lift the suspension/)
    assert.equal((await t.domain.stores.apps.findById(id))?.isSuspended, true)
    // The twin: once the operator lifts it, the owner's own suspension is theirs to lift.
    await updateApp(t.domain, id, { isSuspended: false })
    const suspended = await b.fill(location, `${location}/suspend`, {})
    assert.deepEqual([suspended.statusCode, suspended.headers.location], [302, location], 'back to the app page')
    assert.match((await b.get(location)).body, /id="unsuspend_app"/)
    const lifted = await b.fill(location, `${location}/unsuspend`, {})
    assert.deepEqual([lifted.statusCode, lifted.headers.location], [302, location])
    assert.equal((await t.domain.stores.apps.findById(id))?.isSuspended, false)
  })

  test('edit, suspend, unsuspend, then delete after the confirmation page', async () => {
    const { browser: b, user } = await signedIn()
    const location = String((await createThroughForm(b, {})).headers.location)
    const id = location.split('/').pop() as string
    const saved = await b.fill(location, location, {
      name: 'Renamed',
      description: 'Now with a description',
      website: 'https://renamed.example',
      callbacks: 'https://renamed.example/cb',
      type: 'web',
      access_level: 'read',
    })
    assert.equal(saved.statusCode, 200)
    assert.match(saved.body, /Saved\./)
    let app = await t.domain.stores.apps.findById(id)
    assert.equal(app?.name, 'Renamed')
    assert.equal(app?.accessLevel, 'read')
    assert.equal(app?.isSignInEnabled, false)
    assert.deepEqual(app?.callbackUrls, ['https://renamed.example/cb'])

    assert.equal((await b.fill(location, `${location}/suspend`, {})).statusCode, 302)
    app = await t.domain.stores.apps.findById(id)
    assert.equal(app?.isSuspended, true)
    assert.match((await b.get(location)).body, /id="unsuspend_app"/)
    await b.fill(location, `${location}/unsuspend`, {})
    assert.equal((await t.domain.stores.apps.findById(id))?.isSuspended, false)

    const confirm = await b.get(`${location}/delete`)
    assert.match(confirm.body, /id="confirm_delete"/)
    assert.ok(await t.domain.stores.apps.findById(id), 'opening the confirmation deletes nothing')
    const deleted = await b.post(`${location}/delete`, { csrf_token: csrfOf(confirm.body) })
    assert.equal(deleted.headers.location, '/console')
    assert.equal(await t.domain.stores.apps.findById(id), undefined)
    const rows = await t.domain.stores.listings.auditPage({ limit: 10, appId: id })
    assert.deepEqual(
      rows.map((r) => [r.event, r.detail?.actor]),
      [
        ['app.deleted', `user:${user.id}`],
        ['app.updated', `user:${user.id}`],
        ['app.updated', `user:${user.id}`],
        ['app.updated', `user:${user.id}`],
        ['app.created', `user:${user.id}`],
      ],
    )
  })

  test('sign-out: a forged form (no or another CSRF value) is refused with 403 and leaves the session live; the real one ends it on the server, so a copy of the cookie is signed out too', async () => {
    const { browser: b } = await signedIn()
    const saved = new Map(b.cookies)
    const home = await b.get('/console')
    assert.match(home.body, /<h1>Your apps<\/h1>/)
    for (const fields of [{}, { csrf_token: 'not-the-value' }, { csrf_token: csrfOf((await browser().get('/console')).body) }] as Array<Record<string, string>>) {
      const forged = await b.post('/console/sign-out', fields)
      assert.equal(forged.statusCode, 403, JSON.stringify(fields))
      assert.match((await b.get('/console')).body, /<h1>Your apps<\/h1>/, 'still signed in')
    }
    const real = await b.post('/console/sign-out', { csrf_token: csrfOf(home.body) })
    assert.equal(real.statusCode, 302)
    assert.doesNotMatch((await b.get('/console')).body, /<h1>Your apps<\/h1>/, 'signed out')
    const copy = await t.app.inject({ method: 'GET', url: '/console', remoteAddress: b.address, cookies: Object.fromEntries(saved) })
    assert.equal(copy.statusCode, 200)
    assert.doesNotMatch(copy.body, /<h1>Your apps<\/h1>/, 'the copy of the old cookie is signed out: the session ended on the server')
    assert.match(copy.body, /name="password"/, 'it gets the sign-in form')
  })

  test('a form without the session\'s CSRF value is refused (403) and changes nothing', async () => {
    const { browser: b } = await signedIn()
    const location = String((await createThroughForm(b, {})).headers.location)
    const id = location.split('/').pop() as string
    for (const csrf of [undefined, 'A'.repeat(32)]) {
      const answer = await b.post(`${location}/delete`, csrf ? { csrf_token: csrf } : {})
      assert.equal(answer.statusCode, 403)
    }
    const stranger = new Browser(t.app, nextAddress())
    const page = await stranger.get('/console')
    assert.equal((await stranger.post(`${location}/suspend`, { csrf_token: csrfOf(page.body) })).headers.location, '/console', 'signed out: sent to sign in')
    const app = await t.domain.stores.apps.findById(id)
    assert.equal(app?.isSuspended, false)
    // The same form with the session's own CSRF value goes through.
    await assertRefusedOnlyWhenBroken(
      async (variant) => b.post(`${location}/suspend`, { csrf_token: variant === 'broken' ? 'A'.repeat(32) : csrfOf((await b.get(location)).body) }),
      { status: 403 },
      302,
    )
    assert.equal((await t.domain.stores.apps.findById(id))?.isSuspended, true)
  })

  test("isolation: developer B gets 404 on every console route of A's app, and A's app is unchanged", async () => {
    const a = await signedIn()
    const location = String((await createThroughForm(a.browser, {})).headers.location)
    const id = location.split('/').pop() as string
    const before = await t.domain.stores.apps.findById(id)
    const b = await signedIn()
    for (const path of [location, `${location}/delete`]) {
      const answer = await b.browser.get(path)
      assert.equal(answer.statusCode, 404, path)
      assert.doesNotMatch(answer.body, /My App/)
    }
    const csrf = csrfOf((await b.browser.get('/console')).body)
    const posts = ['', '/suspend', '/unsuspend', '/delete', '/keys', '/owner-token', '/owner-token/invalidate', '/bearer-token', '/bearer-token/invalidate', '/oauth2', '/oauth2/secret']
    for (const suffix of posts) {
      const answer = await b.browser.post(`${location}${suffix}`, { csrf_token: csrf, name: 'Stolen', callbacks: '', type: 'web', access_level: 'read' })
      assert.equal(answer.statusCode, 404, suffix)
    }
    // An id that is no app at all looks the same.
    assert.equal((await b.browser.get('/console/apps/999999999999')).statusCode, 404)
    assert.deepEqual(await t.domain.stores.apps.findById(id), before)
    assert.equal(await t.domain.stores.bearerTokens.findLive(id), undefined)
  })

  test('the sign-up page is a 404 without --allow-signup', async () => {
    const off = await injectedTestServer()
    try {
      const b = new Browser(off.app)
      const closed = await b.get('/console/signup')
      assert.equal(closed.statusCode, 404)
      assert.match(closed.body, /<title>Sign-up is closed · Latchkey<\/title>/)
      assert.match(closed.body, /<h1>Sign-up is closed<\/h1>\n<p role="alert">Sign-up is closed on this service\. Ask the operator of this service for an account\.<\/p>/)
      assert.doesNotMatch(closed.body, /This link does not work/, 'the link works: sign-up is what is off')
      const csrf = csrfOf((await b.get('/console')).body)
      assert.equal((await b.post('/console/signup', { csrf_token: csrf, screen_name: 'nobody_new', name: 'N', password: 'a good password' })).statusCode, 404)
      assert.equal(await off.domain.stores.users.findByScreenName('nobody_new'), undefined)
      assert.doesNotMatch((await b.get('/console')).body, /Create an account/)
    } finally {
      await off.close()
    }
  })

  test('owner token and bearer token are shown on the page they are made on, work with signed calls, and stop at once when invalidated', async () => {
    const { browser: b, user } = await signedIn()
    const location = String((await createThroughForm(b, {})).headers.location)
    const id = location.split('/').pop() as string
    const app = await t.domain.stores.apps.findById(id)
    assert.ok(app)
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const shown = await b.fill(location, `${location}/owner-token`, {})
    const token = { key: textOf(shown.body, 'access_token') ?? '', secret: textOf(shown.body, 'access_token_secret') ?? '' }
    const verify = () => t.signedFetch({ consumer, token, method: 'GET', url: `${t.url}/1.1/account/verify_credentials.json` })
    const ok = await verify()
    assert.equal(ok.status, 200)
    assert.equal(ok.json.screen_name, user.screenName)
    await b.fill(location, `${location}/owner-token/invalidate`, {})
    const dead = await verify()
    assert.equal(dead.status, 401)
    assert.equal(errorCode(dead), 89)

    const bearerPage = await b.fill(location, `${location}/bearer-token`, {})
    const bearer = textOf(bearerPage.body, 'bearer_token')
    assert.ok(bearer)
    const call = () => t.transport({ method: 'GET', url: `${t.url}/1.1/application/rate_limit_status.json`, headers: { authorization: `Bearer ${bearer}` } })
    assert.equal((await call()).status, 200)
    await b.fill(location, `${location}/bearer-token/invalidate`, {})
    assert.equal((await call()).status, 401)
  })

  test('user authentication settings: OAuth 2.0 on shows the client id and, once, the secret that authenticates; a new secret ends the old one; off ends it', async () => {
    const { browser: b } = await signedIn()
    const location = String((await createThroughForm(b, {})).headers.location)
    const revokeWith = (clientId: string, secret: string) =>
      t.transport({
        method: 'POST',
        url: `${t.url}/2/oauth2/revoke`,
        headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=none',
      })
    const refused = await b.fill(location, `${location}/oauth2`, { oauth2: 'secretive' })
    assert.equal(refused.statusCode, 400)
    assert.match(refused.body, /Choose Off, Confidential client or Public client\./)
    const on = await b.fill(location, `${location}/oauth2`, { oauth2: 'confidential' })
    assert.equal(on.statusCode, 200)
    const clientId = textOf(on.body, 'oauth2_client_id') ?? ''
    const secret = textOf(on.body, 'oauth2_client_secret') ?? ''
    assert.match(secret, /^[A-Za-z0-9]{50}$/)
    assert.equal((await revokeWith(clientId, secret)).status, 200)
    const page = await b.get(location)
    assert.match(page.body, new RegExp(`<code id="client_id">${clientId}</code>`))
    assert.doesNotMatch(page.body, new RegExp(secret), 'the secret is not shown again')

    // With a grace period the old secret works on, and the page says until when.
    const graceful = await b.fill(location, `${location}/oauth2/secret`, { client_secret_grace: '3600' })
    const gracefulSecret = textOf(graceful.body, 'oauth2_client_secret') ?? ''
    assert.match(graceful.body, /The previous secret keeps working until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./)
    assert.equal((await revokeWith(clientId, secret)).status, 200)
    assert.equal((await revokeWith(clientId, gracefulSecret)).status, 200)
    const badGrace = await b.fill(location, `${location}/oauth2/secret`, { client_secret_grace: 'forever' })
    assert.equal(badGrace.statusCode, 400)
    assert.equal((await revokeWith(clientId, gracefulSecret)).status, 200, 'a refused choice changes nothing')

    const renewed = await b.fill(location, `${location}/oauth2/secret`, {})
    const newSecret = textOf(renewed.body, 'oauth2_client_secret') ?? ''
    assert.notEqual(newSecret, gracefulSecret)
    assert.doesNotMatch(renewed.body, /The previous secret keeps working/)
    assert.equal((await revokeWith(clientId, newSecret)).status, 200)
    assert.equal((await revokeWith(clientId, gracefulSecret)).status, 401)
    assert.equal((await revokeWith(clientId, secret)).status, 401, 'no grace period: the old secrets stop at once')

    const off = await b.fill(location, `${location}/oauth2`, { oauth2: 'off' })
    assert.match(off.body, /OAuth 2.0 is off/)
    assert.equal((await revokeWith(clientId, newSecret)).status, 401)
  })

  test("the app's page shows its rate-limit usage per endpoint, the counts rate_limit_status gives", async () => {
    const { browser: b } = await signedIn()
    const location = String((await createThroughForm(b, {})).headers.location)
    const app = await t.domain.stores.apps.findById(location.split('/').pop() as string)
    assert.ok(app)
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    for (let i = 0; i < 3; i++) {
      assert.equal((await t.signedFetch({ consumer, url: `${t.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })).status, 200)
    }
    const status = await t.signedFetch({ consumer, method: 'GET', url: `${t.url}/1.1/application/rate_limit_status.json?resources=oauth` })
    const remaining = status.json.resources.oauth['/oauth/request_token'].remaining as number
    const page = await b.get(location)
    const row = /<tr><td><code class="endpoint"><span class="nowrap">\/oauth<\/span><wbr><span class="nowrap">\/request_token<\/span><\/code><\/td><td>(\d+)<\/td><td>(\d+)<\/td>/.exec(page.body)
    assert.ok(row, 'a row for /oauth/request_token')
    assert.equal(Number(row[1]), 3)
    assert.equal(Number(row[2]) - Number(row[1]), remaining)
    assert.doesNotMatch(page.body, /\/oauth<wbr>\/authorize</, 'pages counted per address are no app\'s budget')
  })

  test('regenerating the keys shows the new pair once; the old pair stops working', async () => {
    const { browser: b } = await signedIn()
    const location = String((await createThroughForm(b, {})).headers.location)
    await b.get(location)
    const old = await t.domain.stores.apps.findById(location.split('/').pop() as string)
    assert.ok(old)
    const answer = await b.fill(location, `${location}/keys`, {})
    assert.equal(answer.headers.location, location)
    const page = await b.get(location)
    const key = textOf(page.body, 'consumer_key') ?? ''
    const secret = textOf(page.body, 'consumer_secret') ?? ''
    assert.notEqual(key, old.consumerKey)
    const requestToken = (consumer: { key: string; secret: string }) =>
      t.signedFetch({ consumer, url: `${t.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    assert.equal((await requestToken({ key, secret })).status, 200)
    assert.equal((await requestToken({ key: old.consumerKey, secret: old.consumerSecret })).status, 401)
  })

  test('regenerating with a grace period: the new pair works, and the old pair and its tokens keep working', async () => {
    const { browser: b } = await signedIn()
    const location = String((await createThroughForm(b, {})).headers.location)
    await b.get(location)
    const old = await t.domain.stores.apps.findById(location.split('/').pop() as string)
    assert.ok(old)
    const oldConsumer = { key: old.consumerKey, secret: old.consumerSecret }
    const ownerPage = await b.fill(location, `${location}/owner-token`, {})
    const token = { key: textOf(ownerPage.body, 'access_token') ?? '', secret: textOf(ownerPage.body, 'access_token_secret') ?? '' }

    const refused = await b.fill(location, `${location}/keys`, { grace: '99999999' })
    assert.equal(refused.statusCode, 400)
    assert.equal((await t.domain.stores.apps.findById(old.id))?.consumerKey, old.consumerKey, 'a bad grace value changes nothing')

    await b.fill(location, `${location}/keys`, { grace: '3600' })
    const page = await b.get(location)
    const fresh = { key: textOf(page.body, 'consumer_key') ?? '', secret: textOf(page.body, 'consumer_secret') ?? '' }
    assert.notEqual(fresh.key, old.consumerKey)
    const requestToken = (consumer: { key: string; secret: string }) =>
      t.signedFetch({ consumer, url: `${t.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    assert.equal((await requestToken(fresh)).status, 200)
    assert.equal((await requestToken(oldConsumer)).status, 200, 'the old pair works during the grace period')
    const verify = await t.signedFetch({ consumer: oldConsumer, token, method: 'GET', url: `${t.url}/1.1/account/verify_credentials.json` })
    assert.equal(verify.status, 200, 'the owner token made under the old pair still works')
    const [row] = await t.domain.stores.listings.auditPage({ limit: 1, appId: old.id, event: 'app.keys_rotated' })
    assert.equal(row?.detail?.grace_seconds, 3600)
  })
})

describe('console limits', () => {
  let t: TestServer
  before(async () => {
    t = await injectedTestServer()
  })
  after(() => t.close())

  test('one address gets a 429 page after its budget of console requests; another address is not affected', async () => {
    const b = new Browser(t.app, '10.47.0.1')
    for (let i = 0; i < SERVICE_LIMITS.consolePages.limit; i++) assert.equal((await b.get('/console')).statusCode, 200)
    const refused = await b.get('/console')
    assert.equal(refused.statusCode, 429)
    assert.match(refused.body, /Too many/)
    assert.equal((await new Browser(t.app, '10.47.0.2').get('/console')).statusCode, 200)
  })

  test('one signed-in account gets a 429 page after its budget of changes', async () => {
    const { user, password } = await makeUser(t.domain)
    const b = new Browser(t.app, '10.47.1.1')
    await b.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })
    const csrf = csrfOf((await b.get('/console')).body)
    for (let i = 0; i < SERVICE_LIMITS.consoleChanges.limit; i++) assert.equal((await b.post('/console/apps/1/suspend', { csrf_token: csrf })).statusCode, 404)
    assert.equal((await b.post('/console/apps/1/suspend', { csrf_token: csrf })).statusCode, 429)
  })
})

describe('connected apps', () => {
  let t: TestServer
  before(async () => {
    t = await injectedTestServer()
  })
  after(() => t.close())

  test('a person sees the apps they authorized, with the owner; revoking one makes its token 401 code 89 and leaves the other', async () => {
    const { user, password } = await makeUser(t.domain, { name: 'Pat Person' })
    const { user: owner } = await makeUser(t.domain, { name: 'Olive Owner' })
    const app = await makeApp(t.domain, { owner, name: '<b>Cal</b> App' })
    const other = await makeApp(t.domain, { name: 'Other App' })
    const grant = (appId: string) => issueOrReuseAccessToken(t.domain, { appId, userId: user.id, accessLevel: 'read' }, { via: 'exchange' })
    const token = await grant(app.id)
    const otherToken = await grant(other.id)
    const b = new Browser(t.app, '10.45.0.1')
    const signedOut = await b.get('/settings/connected_apps')
    assert.match(signedOut.body, /Sign in to see your connected apps/)
    await b.fill('/settings/connected_apps', '/console/sign-in', { username: user.screenName, password, next: '/settings/connected_apps' })
    const page = await b.get('/settings/connected_apps')
    assert.equal(page.statusCode, 200)
    assert.match(page.body, new RegExp(`<li data-app-id="${app.id}">`))
    assert.match(page.body, new RegExp(`<li data-app-id="${other.id}">`))
    assert.match(page.body, /&lt;b&gt;Cal&lt;\/b&gt; App/)
    assert.match(page.body, /Olive Owner \(@/)
    assert.match(page.body, /name="revoke" value="\d+"/)

    const verify = (key: { token: string; secret: string }, of: typeof app) =>
      t.signedFetch({
        consumer: { key: of.consumerKey, secret: of.consumerSecret },
        token: { key: key.token, secret: key.secret },
        method: 'GET',
        url: `${t.url}/1.1/account/verify_credentials.json`,
      })
    assert.equal((await verify(token, app)).status, 200)
    const revoked = await b.post('/settings/connected_apps/revoke', { csrf_token: csrfOf(page.body), revoke: app.id })
    assert.equal(revoked.statusCode, 302)
    const dead = await verify(token, app)
    assert.equal(dead.status, 401)
    assert.equal(errorCode(dead), 89)
    assert.equal((await verify(otherToken, other)).status, 200)
    const after = await b.get('/settings/connected_apps')
    assert.doesNotMatch(after.body, new RegExp(`data-app-id="${app.id}"`))
    const [row] = await t.domain.stores.listings.auditPage({ limit: 1, appId: app.id, event: 'authorization.revoked' })
    assert.equal(row?.detail?.actor, `user:${user.id}`)
  })

  test("revoking an app the person never authorized is a 404 that changes nothing; a forged form is a 403", async () => {
    const { user, password } = await makeUser(t.domain)
    const { user: someoneElse } = await makeUser(t.domain)
    const app = await makeApp(t.domain)
    const theirs = await issueOrReuseAccessToken(t.domain, { appId: app.id, userId: someoneElse.id, accessLevel: 'read' }, { via: 'exchange' })
    const b = new Browser(t.app, '10.45.0.2')
    await b.fill('/settings/connected_apps', '/console/sign-in', { username: user.screenName, password, next: '/settings/connected_apps' })
    const page = await b.get('/settings/connected_apps')
    assert.match(page.body, /You have not authorized any app/)
    assert.equal((await b.post('/settings/connected_apps/revoke', { csrf_token: csrfOf(page.body), revoke: app.id })).statusCode, 404)
    assert.equal((await b.post('/settings/connected_apps/revoke', { csrf_token: 'B'.repeat(32), revoke: app.id })).statusCode, 403)
    assert.equal((await t.domain.stores.accessTokens.findByToken(theirs.token))?.revokedAtMs, null)
  })

  test('the consent page links to connected apps', async () => {
    const { makeRequestToken } = await import('../../helpers/consent-pages.ts')
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const page = await new Browser(t.app, '10.45.0.3').get(`/oauth/authorize?oauth_token=${rt.token}`)
    assert.match(page.body, /<a href="\/settings\/connected_apps">Manage the apps you've connected<\/a>/)
  })
})
