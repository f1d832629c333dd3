// The person's own settings pages (src/pages/settings/): sessions, password, connected apps, with
// the browser's cookies kept as a browser would keep them. Runs everywhere (the Chromium tests in
// test/e2e/browser/ check the same pages in a real browser when one is installed).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { isPostgresUrl } from '../../../src/storage/urls.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { whileDatabaseLocked } from '../../helpers/locked-database.ts'
import { injectedTestServer, type TestServer } from '../../helpers/test-app.ts'
import { Browser, csrfOf } from '../../helpers/browser.ts'

let address = 0
const nextAddress = () => `10.48.${Math.floor(++address / 250)}.${address % 250}`
const statusOf = (page: string) => /<p role="status">([^<]*)<\/p>/.exec(page)?.[1]
const alertOf = (page: string) => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(page)?.[1]
const sessionIdsOf = (page: string) => [...page.matchAll(/<tr data-session-id="([^"]+)">/g)].map((m) => m[1]!)

describe('settings pages', () => {
  let t: TestServer
  const logLines: string[] = []
  before(async () => {
    t = await injectedTestServer({ logLines })
  })
  after(() => t.close())

  const errorsLogged = (from = 0) => logLines.slice(from).map((line) => JSON.parse(line) as { level: number }).filter((line) => line.level >= 50)

  async function person() {
    const { user, password } = await makeUser(t.domain)
    const signIn = async () => {
      const browser = new Browser(t.app, nextAddress())
      assert.equal((await browser.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })).statusCode, 302)
      return browser
    }
    return { user, password, signIn }
  }

  const isSignedIn = async (browser: Browser) => !/name="password"/.test((await browser.get('/console')).body)

  test("the sessions page lists the person's sessions; signing out another says so and ends it on the server", async () => {
    const { signIn } = await person()
    const other = await signIn()
    const me = await signIn()
    const page = await me.get('/settings/sessions')
    assert.equal(page.statusCode, 200)
    const ids = sessionIdsOf(page.body)
    assert.equal(ids.length, 2)
    const current = /<tr data-session-id="([^"]+)">(?:(?!<\/tr>)[\s\S])*this browser/.exec(page.body)?.[1]
    const otherId = ids.find((id) => id !== current)!
    // Each Sign out button says, to a screen reader, which session it ends; this browser's says so.
    const labels = [...page.body.matchAll(/<button type="submit" name="session" value="([^"]+)"[^>]* aria-label="([^"]+)"/g)].map(([, id, label]) => [id, label])
    assert.deepEqual(
      labels.map(([id, label]) => [id, /^Sign out the session of \d{4}-\d\d-\d\d \d\d:\d\d UTC( \(this browser\))?$/.test(label!), label!.endsWith(' (this browser)')]),
      ids.map((id) => [id, true, id === current]),
    )
    const ended = await me.post('/settings/sessions/end', { csrf_token: csrfOf(page.body), session: otherId })
    assert.equal(ended.statusCode, 200)
    assert.equal(statusOf(ended.body), 'That session is signed out.')
    assert.deepEqual(sessionIdsOf(ended.body), [current])
    assert.equal(await isSignedIn(other), false)
    assert.equal(await isSignedIn(me), true)
  })

  test("each session is named by the browser it was signed in from", async () => {
    const { user, password } = await person()
    const firefox = new Browser(t.app, nextAddress(), 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')
    await firefox.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })
    const page = await firefox.get('/settings/sessions')
    assert.match(page.body, /<span title="Mozilla\/5\.0 \(X11; Linux x86_64; rv:128\.0\) Gecko\/20100101 Firefox\/128\.0">Firefox on Linux<\/span>/)
  })

  test('signing out the current session from the list signs this browser out and leads back to the list, which asks to sign in', async () => {
    const { signIn } = await person()
    const me = await signIn()
    const page = await me.get('/settings/sessions')
    const [only] = sessionIdsOf(page.body)
    const ended = await me.post('/settings/sessions/end', { csrf_token: csrfOf(page.body), session: only! })
    assert.equal(ended.statusCode, 302)
    assert.equal(ended.headers.location, '/settings/sessions')
    const after = await me.get('/settings/sessions')
    assert.match(after.body, /<h1>Sign in to see your sessions<\/h1>/)
  })

  test("a session id that is not one of the person's, or not an id at all, is a 404 that ends nothing", async () => {
    const { signIn } = await person()
    const me = await signIn()
    const stranger = await (await person()).signIn()
    const strangerId = sessionIdsOf((await stranger.get('/settings/sessions')).body)[0]!
    const csrf = csrfOf((await me.get('/settings/sessions')).body)
    for (const session of [strangerId, `x${strangerId}`, `${strangerId}x`, 'short', '']) {
      const answer = await me.post('/settings/sessions/end', { csrf_token: csrf, session })
      assert.equal(answer.statusCode, 404, session)
    }
    assert.equal(await isSignedIn(stranger), true)
    assert.equal(await isSignedIn(me), true)
  })

  test('"Sign out of all other sessions" counts them, in the singular and the plural, and keeps this browser', async () => {
    const { signIn } = await person()
    const first = await signIn()
    const me = await signIn()
    const one = await me.fill('/settings/sessions', '/settings/sessions/end-others', {})
    assert.equal(statusOf(one.body), '1 other session is signed out.')
    assert.equal(await isSignedIn(first), false)
    await signIn()
    await signIn()
    const two = await me.fill('/settings/sessions', '/settings/sessions/end-others', {})
    assert.equal(statusOf(two.body), '2 other sessions are signed out.')
    const none = await me.fill('/settings/sessions', '/settings/sessions/end-others', {})
    assert.equal(statusOf(none.body), '0 other sessions are signed out.')
    assert.equal(await isSignedIn(me), true)
  })

  test('changing the password: the old one is asked for; an unfit new one or a wrong current one shows the form with the reason; done, every other session ends and this browser stays', async () => {
    const { user, password, signIn } = await person()
    const other = await signIn()
    const me = await signIn()
    const form = await me.get('/settings/password')
    assert.equal(form.statusCode, 200)
    assert.match(form.body, /<h1>Change your password<\/h1>/)
    const wrong = await me.fill('/settings/password', '/settings/password', { current_password: 'not it', new_password: 'a new horse battery' })
    assert.equal(wrong.statusCode, 401)
    assert.equal(alertOf(wrong.body), 'The username or password is not right.')
    const short = await me.fill('/settings/password', '/settings/password', { current_password: password, new_password: 'short' })
    assert.equal(short.statusCode, 400)
    assert.match(alertOf(short.body) ?? '', /password/i)
    const missing = await me.fill('/settings/password', '/settings/password', {})
    assert.equal(missing.statusCode, 400, 'no new password')
    assert.equal(await isSignedIn(other), true, 'nothing changed yet')
    const done = await me.fill('/settings/password', '/settings/password', { current_password: password, new_password: 'a new horse battery' })
    assert.equal(done.statusCode, 200)
    assert.equal(statusOf(done.body), 'Your password is changed. Every other session is signed out.')
    assert.equal(alertOf(done.body), undefined)
    assert.equal(await isSignedIn(other), false)
    assert.equal(await isSignedIn(me), true, 'this browser has a new session')
    const again = new Browser(t.app, nextAddress())
    assert.equal((await again.fill('/console', '/console/sign-in', { username: user.screenName, password: 'a new horse battery', next: '/console' })).statusCode, 302)
  })

  test('a password change that cannot be written is the plain error page', async (ctx) => {
    if (isPostgresUrl(t.dbPath)) return ctx.skip('locks the SQLite file')
    const { password, signIn } = await person()
    const me = await signIn()
    const form = await me.get('/settings/password')
    await whileDatabaseLocked(t.dbPath, async () => {
      const answer = await me.post('/settings/password', { csrf_token: csrfOf(form.body), current_password: password, new_password: 'a new horse battery' })
      assert.equal(answer.statusCode, 503)
      assert.doesNotMatch(answer.body, /Change your password/)
    })
  })

  test('connected apps: revoking one by its id; an id that is not a number is a 404', async () => {
    const { user, signIn } = await person()
    const app = await makeApp(t.domain)
    await issueOrReuseAccessToken(t.domain, { appId: app.id, userId: user.id, accessLevel: 'read' }, { via: 'exchange' })
    const me = await signIn()
    const page = await me.get('/settings/connected_apps')
    assert.equal(page.statusCode, 200)
    assert.match(page.body, new RegExp(app.name))
    for (const appId of [`x${app.id}`, `${app.id}x`, '']) {
      assert.equal((await me.post('/settings/connected_apps/revoke', { csrf_token: csrfOf(page.body), revoke: appId })).statusCode, 404, appId)
    }
    const revoked = await me.post('/settings/connected_apps/revoke', { csrf_token: csrfOf(page.body), revoke: app.id })
    assert.ok(revoked.statusCode === 200 || revoked.statusCode === 302, String(revoked.statusCode))
    assert.doesNotMatch((await me.get('/settings/connected_apps')).body, new RegExp(app.name))
  })

  test('signed out, every settings page asks to sign in and every form leads to the console; nothing fails', async () => {
    const from = logLines.length
    for (const path of ['/settings/sessions', '/settings/password', '/settings/connected_apps']) {
      const page = await new Browser(t.app, nextAddress()).get(path)
      assert.equal(page.statusCode, 200, path)
      assert.match(page.body, new RegExp(`<input type="hidden" name="next" value="${path}">`), path)
    }
    const visitor = new Browser(t.app, nextAddress())
    const csrf = csrfOf((await visitor.get('/console')).body)
    for (const path of ['/settings/sessions/end', '/settings/sessions/end-others', '/settings/password', '/settings/connected_apps/revoke']) {
      const answer = await visitor.post(path, { csrf_token: csrf, session: 'S'.repeat(32), revoke: '1', current_password: 'x', new_password: 'y'.repeat(10) })
      assert.equal(answer.statusCode, 302, path)
      assert.equal(answer.headers.location, '/console', path)
    }
    assert.deepEqual(errorsLogged(from), [])
  })
})
