// The sign-in throttle in a real browser (issue 3): after 5 wrong passwords for one account, the
// sixth attempt gets the 429 page, even with the right password. A server of its own, so the
// failures it counts from 127.0.0.1 touch no other test.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { type TestServer } from '../../helpers/test-app.ts'
import { assertAccessible, newPerson, open, skipReason, submitWith } from './browser.ts'
import { getRequestToken, type CallbackSite } from './oauth.ts'
import { closeBrowserEnvironment, startBrowserEnvironment } from './environment.ts'

describe('the sign-in throttle in Chromium', { skip: skipReason }, () => {
  let server: TestServer
  let site: CallbackSite
  let browser: Browser

  before(async () => {
    ;({ browser, server, site } = await startBrowserEnvironment())
  })
  after(() => closeBrowserEnvironment({ browser, server, site }))

  test('5 wrong passwords for one account, then the sixth attempt shows the 429 page and the app gets nothing', async () => {
    const { user, password } = await makeUser(server.domain)
    const app = await makeApp(server.domain, { callbackUrls: [site.registered] })
    const rt = await getRequestToken(server, app, site.registered)
    const page = await newPerson(browser)
    await open(page, `${server.url}/oauth/authorize?oauth_token=${rt.token}`)

    for (let attempt = 1; attempt <= 5; attempt++) {
      await page.fill('#username', user.screenName)
      await page.fill('#password', `wrong-password-${attempt}`)
      const response = await submitWith(page, '#allow')
      assert.equal(response.status(), 401, `attempt ${attempt}`)
      assert.equal(await page.getByRole('alert').innerText(), 'The username or password is not right.')
    }

    await page.fill('#username', user.screenName)
    await page.fill('#password', password)
    const response = await submitWith(page, '#allow')
    assert.equal(response.status(), 429)
    assert.equal(response.headers()['content-type'], 'text/html; charset=utf-8')
    assert.equal(await page.getByRole('alert').innerText(), 'Too many attempts to sign in. Please wait a few minutes and try again.')
    assert.equal(new URL(page.url()).pathname, '/oauth/authorize', 'still on Latchkey')
    assert.deepEqual(site.received, [], 'the callback was never called')
    const stored = await server.domain.stores.requestTokens.findByToken(rt.token)
    assert.equal(stored?.status, 'issued', 'the request token was not approved')
    await assertAccessible(page, 'the 429 page of the sign-in throttle')
  })
})
