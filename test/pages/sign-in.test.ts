import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { buildTestApp, type TestApp } from '../helpers/test-app.ts'
import { Browser, csrfOf } from '../helpers/browser.ts'
import { makeRequestToken, openAndPress } from '../helpers/consent-pages.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'

describe('signing in on the consent page', () => {
  let t: TestApp
  before(async () => {
    t = await buildTestApp()
  })
  after(() => t.close())

  /** Opens a fresh consent page and submits these credentials with "Authorize app". */
  async function tryPassword(browser: Browser, username: string, password: string) {
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const response = await openAndPress(browser, '/oauth/authorize', rt.token, 'allow', { username, password })
    const status = (await t.domain.stores.requestTokens.findByToken(rt.token))?.status
    return { response, status }
  }

  const MESSAGE = 'The username or password is not right.'

  test('a wrong password and an unknown user get the same page: 401, the same message, the form again', async () => {
    const { user, password } = await makeUser(t.domain)
    const wrong = await tryPassword(new Browser(t.app, '10.1.0.1'), user.screenName, 'not-the-password')
    const unknown = await tryPassword(new Browser(t.app, '10.1.0.2'), 'nobody_at_all', 'not-the-password')
    for (const { response, status } of [wrong, unknown]) {
      assert.equal(response.statusCode, 401)
      assert.match(response.body, new RegExp(`<p class="alert" role="alert">${MESSAGE}</p>`))
      assert.match(response.body, /name="password"/)
      assert.equal(status, 'issued')
    }
    assert.match(wrong.response.body, new RegExp(`name="username" type="text" value="${user.screenName}"`))
    // The same form with the right password approves (a redirect to the callback).
    await assertRefusedOnlyWhenBroken(
      async (variant) => (await tryPassword(new Browser(t.app, '10.1.0.3'), user.screenName, variant === 'broken' ? 'not-the-password' : password)).response,
      { status: 401 },
      302,
    )
    assert.doesNotMatch(wrong.response.body, /not-the-password/, 'the password is never echoed')
  })

  test('after 5 failures for one account, it gets a 429 page, even from another address with the right password', async () => {
    const { user, password } = await makeUser(t.domain)
    for (let i = 0; i < 5; i++) {
      const { response } = await tryPassword(new Browser(t.app, `10.2.0.${i}`), user.screenName, 'wrong-password')
      assert.equal(response.statusCode, 401)
    }
    const { response, status } = await tryPassword(new Browser(t.app, '10.2.1.1'), user.screenName.toUpperCase(), password)
    assert.equal(response.statusCode, 429)
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(response.body, /Too many attempts to sign in\. Please try again in 15 minutes\./)
    assert.equal(status, 'issued')
  })

  test('after 5 failures from one address, it gets a 429 page, even for another account with the right password', async () => {
    const { user, password } = await makeUser(t.domain)
    const browser = new Browser(t.app, '10.3.0.1')
    for (let i = 0; i < 5; i++) {
      const { response } = await tryPassword(browser, `guess_${i}`, 'wrong-password')
      assert.equal(response.statusCode, 401)
    }
    const blocked = await tryPassword(browser, user.screenName, password)
    assert.equal(blocked.response.statusCode, 429)
    const elsewhere = await tryPassword(new Browser(t.app, '10.3.0.2'), user.screenName, password)
    assert.equal(elsewhere.response.statusCode, 302, 'the account itself is not blocked')
  })

  test('an unknown account is throttled like a real one, so a 429 does not reveal whether it exists', async () => {
    for (let i = 0; i < 5; i++) await tryPassword(new Browser(t.app, `10.4.0.${i}`), 'ghost_account', 'wrong-password')
    const { response } = await tryPassword(new Browser(t.app, '10.4.1.1'), 'ghost_account', 'wrong-password')
    assert.equal(response.statusCode, 429)
  })

  test('a correct sign-in sets a 30-day HttpOnly session cookie and a new CSRF value', async () => {
    const { user, password } = await makeUser(t.domain)
    const browser = new Browser(t.app, '10.5.0.1')
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const page = await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
    const csrfBefore = csrfOf(page.body)
    const response = await browser.post('/oauth/authorize', {
      csrf_token: csrfBefore,
      oauth_token: rt.token,
      action: 'allow',
      username: user.screenName,
      password,
    })
    assert.equal(response.statusCode, 302)
    const cookie = response.cookies.find((c) => c.name === 'latchkey_session')
    assert.equal(cookie?.maxAge, 30 * 24 * 60 * 60)
    assert.equal(cookie?.httpOnly, true)
    const next = await browser.get(`/oauth/authorize?oauth_token=${(await makeRequestToken(t.domain, await makeApp(t.domain))).token}`)
    assert.notEqual(csrfOf(next.body), csrfBefore)
  })
})
