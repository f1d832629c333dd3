// Issue 19: every sensitive action of the console asks for a fresh password once the session's
// password is older than 10 minutes, and does nothing until it is given; with it, the action runs.
// Actions that show no secret (save, suspend) do not ask.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { isPostgresUrl } from '../../../src/storage/urls.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { whileDatabaseLocked } from '../../helpers/locked-database.ts'
import { injectedTestServer, testClock, type TestServer } from '../../helpers/test-app.ts'
import { Browser, csrfOf } from '../../helpers/browser.ts'

let address = 0
const nextAddress = () => `10.45.${Math.floor(++address / 250)}.${address % 250}`
const STALE = 10 * 60_000 + 1000

describe('a fresh password before sensitive console actions', () => {
  const clock = testClock()
  let t: TestServer
  const logLines: string[] = []
  before(async () => {
    t = await injectedTestServer({ clock, logLines })
  })
  after(() => t.close())

  async function developerWithApp() {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { owner: user })
    const browser = new Browser(t.app, nextAddress())
    const answer = await browser.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })
    assert.equal(answer.statusCode, 302)
    return { user, password, app, browser }
  }

  /** The OAuth tool signing with the owner's token: the Authorization header acts as the owner. */
  const WITH_TOKEN = { method: 'GET', url: 'http://localhost/1.1/account/verify_credentials.json', parameters: '', with_token: 'on' }
  const ACTIONS: Array<[string, string, RegExp, Record<string, string>?]> = [
    ['get the owner token', 'owner-token', /id="access_token_secret"/],
    ['get the bearer token', 'bearer-token', /id="bearer_token"/],
    ['regenerate the keys', 'keys', /^$/],
    ['delete the app', 'delete', /^$/],
    ["sign a request with the owner's token in the OAuth tool", 'oauth-tool', /id="authorization_header"[^>]*>OAuth [^<]*oauth_token=/, WITH_TOKEN],
  ]

  for (const [what, path, shown, fields = {}] of ACTIONS) {
    test(`${what}: asked for the password when it is 10 minutes old, done once it is given`, async () => {
      const { user, password, app, browser } = await developerWithApp()
      clock.advance(STALE)
      const page = await browser.get(`/console/apps/${app.id}`)
      const asked = await browser.post(`/console/apps/${app.id}/${path}`, { csrf_token: csrfOf(page.body), ...fields })
      assert.equal(asked.statusCode, 200)
      assert.match(asked.body, /Confirm your password/)
      assert.match(asked.body, new RegExp(`action="/console/apps/${app.id}/${path}"`))
      assert.doesNotMatch(asked.body, /class="secret"/)
      const stored = await t.domain.stores.apps.findById(app.id)
      assert.equal(stored?.consumerKey, app.consumerKey, 'nothing was done yet')
      assert.equal(await t.domain.stores.accessTokens.findLive(app.id, user.id, app.accessLevel), undefined, 'no owner token was made')

      const wrong = await browser.post(`/console/apps/${app.id}/${path}`, { csrf_token: csrfOf(asked.body), ...fields, sudo_password: 'not the password' })
      assert.equal(wrong.statusCode, 401)
      assert.match(wrong.body, /The username or password is not right\./)
      assert.deepEqual(await t.domain.stores.apps.findById(app.id), stored, 'a wrong password does nothing')

      const done = await browser.post(`/console/apps/${app.id}/${path}`, { csrf_token: csrfOf(wrong.body), ...fields, sudo_password: password })
      const after = await t.domain.stores.apps.findById(app.id)
      if (path === 'delete') assert.equal(after, undefined, 'deleted')
      else if (path === 'keys') assert.notEqual(after?.consumerKey, app.consumerKey, 'regenerated')
      else assert.match(done.body, shown)
      assert.ok(done.statusCode === 200 || done.statusCode === 302, `answered ${done.statusCode}`)

      // Confirmed: for the next 10 minutes the actions ask nothing.
      if (path !== 'delete') {
        const again = await browser.post(`/console/apps/${app.id}/${path === 'keys' ? 'bearer-token' : path}`, { csrf_token: csrfOf((await browser.get(`/console/apps/${app.id}`)).body), ...fields })
        assert.doesNotMatch(again.body, /Confirm your password/)
      }
    })
  }

  test("the confirmation carries the action's own fields, never the CSRF value or a password typed, and posts to the action without its query", async () => {
    const { app, browser } = await developerWithApp()
    clock.advance(STALE)
    const page = await browser.get(`/console/apps/${app.id}`)
    const asked = await browser.post(`/console/apps/${app.id}/keys?from=page`, { csrf_token: csrfOf(page.body), grace: '60' })
    assert.match(asked.body, new RegExp(`action="/console/apps/${app.id}/keys"`))
    assert.match(asked.body, /<input type="hidden" name="grace" value="60">/)
    const form = new RegExp(`<form method="post" action="/console/apps/${app.id}/keys">([\\s\\S]*?)</form>`).exec(asked.body)?.[1] ?? ''
    assert.equal(form.match(/name="csrf_token"/g)?.length, 1, 'its own CSRF field only')
    const wrong = await browser.post(`/console/apps/${app.id}/keys`, { csrf_token: csrfOf(asked.body), grace: '60', sudo_password: 'typed-wrong-password' })
    assert.equal(wrong.statusCode, 401)
    assert.match(wrong.body, /<input type="hidden" name="grace" value="60">/)
    assert.doesNotMatch(wrong.body, /typed-wrong-password/)
    assert.equal(wrong.body.match(/name="sudo_password"/g)?.length, 1, 'only the field to type it in')
  })

  test('a password that cannot be checked because the database is not writable is the plain error page, not the confirmation again', async (ctx) => {
    if (isPostgresUrl(t.dbPath)) return ctx.skip('locks the SQLite file')
    const { app, browser } = await developerWithApp()
    clock.advance(STALE)
    const asked = await browser.fill(`/console/apps/${app.id}`, `/console/apps/${app.id}/owner-token`, {})
    await whileDatabaseLocked(t.dbPath, async () => {
      const answer = await browser.post(`/console/apps/${app.id}/owner-token`, { csrf_token: csrfOf(asked.body), sudo_password: 'not the password' })
      assert.equal(answer.statusCode, 503)
      assert.doesNotMatch(answer.body, /Confirm your password/)
    })
  })

  test('a signed-out confirmation leads to the console, and nothing fails on the way', async () => {
    const from = logLines.length
    const browser = new Browser(t.app, nextAddress())
    const csrf = csrfOf((await browser.get('/console')).body)
    const answer = await browser.post('/console/sudo', { csrf_token: csrf, next: '/console/apps/1', sudo_password: 'x' })
    assert.equal(answer.statusCode, 302)
    assert.equal(answer.headers.location, '/console')
    assert.deepEqual(logLines.slice(from).filter((line) => (JSON.parse(line) as { level: number }).level >= 50), [])
  })

  test("saving settings, suspending and signing with the app's keys alone do not ask, however old the password", async () => {
    const { app, browser } = await developerWithApp()
    clock.advance(STALE)
    const page = await browser.get(`/console/apps/${app.id}`)
    const keysOnly = await browser.post(`/console/apps/${app.id}/oauth-tool`, { csrf_token: csrfOf(page.body), ...WITH_TOKEN, with_token: '' })
    assert.equal(keysOnly.statusCode, 200)
    assert.doesNotMatch(keysOnly.body, /oauth_token=/)
    assert.match(keysOnly.body, /id="authorization_header"[^>]*>OAuth oauth_consumer_key=/)
    const suspended = await browser.post(`/console/apps/${app.id}/suspend`, { csrf_token: csrfOf(page.body) })
    assert.equal(suspended.statusCode, 302)
    assert.equal((await t.domain.stores.apps.findById(app.id))?.isSuspended, true)
  })

  test('the new-app secret page asks for the password, then shows the secret once', async () => {
    const { password, browser } = await developerWithApp()
    clock.advance(STALE)
    const created = await browser.fill('/console/apps/new', '/console/apps', { name: 'Later App', callbacks: 'https://client.example/callback', type: 'web', access_level: 'read' })
    assert.equal(created.statusCode, 302)
    const location = String(created.headers.location)
    const asked = await browser.get(location)
    assert.match(asked.body, /Confirm your password/)
    assert.match(asked.body, /action="\/console\/sudo"/)
    assert.match(asked.body, new RegExp(`<input type="hidden" name="next" value="${location}">`), 'leads back to the page')
    assert.doesNotMatch(asked.body, /id="consumer_secret"/)
    const confirmed = await browser.post('/console/sudo', { csrf_token: csrfOf(asked.body), next: location, sudo_password: password })
    assert.equal(confirmed.statusCode, 302)
    assert.equal(confirmed.headers.location, location)
    assert.match((await browser.get(location)).body, /id="consumer_secret"/)
    assert.doesNotMatch((await browser.get(location)).body, /id="consumer_secret"/, 'shown once')
  })
})
