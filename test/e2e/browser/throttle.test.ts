// The sign-in throttle in a real browser (issue 3): after 5 wrong passwords for one account, the
// sixth attempt gets the 429 page, even with the right password. A server of its own, so the
// failures it counts from 127.0.0.1 touch no other test.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { assertAccessible, newPerson, open, skipReason, submitWith } from './browser.ts'
import { getRequestToken } from './oauth.ts'
import { useBrowserEnvironment } from './environment.ts'

describe('the sign-in throttle in Chromium', { skip: skipReason }, () => {
  const env = useBrowserEnvironment()


  test('5 wrong passwords for one account, then the sixth attempt shows the 429 page and the app gets nothing', async () => {
    const { user, password } = await makeUser(env.server.domain)
    const app = await makeApp(env.server.domain, { callbackUrls: [env.site.registered] })
    const rt = await getRequestToken(env.server, app, env.site.registered)
    const page = await newPerson(env.browser)
    await open(page, `${env.server.url}/oauth/authorize?oauth_token=${rt.token}`)

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
    assert.match(await page.getByRole('alert').innerText(), /^Too many attempts to sign in\. Please try again in \d+ minutes?\.$/)
    assert.equal(new URL(page.url()).pathname, '/oauth/authorize', 'still on Latchkey')
    assert.deepEqual(env.site.received, [], 'the callback was never called')
    const stored = await env.server.domain.stores.requestTokens.findByToken(rt.token)
    assert.equal(stored?.status, 'issued', 'the request token was not approved')
    await assertAccessible(page, 'the 429 page of the sign-in throttle')
  })
})
