// GET /oauth/authenticate in a real browser (issue 3): a returning person of a sign-in-enabled app
// goes straight back to the app, without a page.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page, Response } from 'playwright-core'
import type { AppRecord, UserRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { assertAccessible, mainText, newPerson, open, skipReason, submitWith } from './browser.ts'
import { CALLBACK_PAGE_TEXT, exchangeAndVerify, getRequestToken, type AccessToken } from './oauth.ts'
import { useBrowserEnvironment } from './environment.ts'

describe('sign in with Latchkey (/oauth/authenticate) in Chromium', { skip: skipReason }, () => {
  const env = useBrowserEnvironment()


  const authenticateUrl = (token: string) => `${env.server.url}/oauth/authenticate?oauth_token=${encodeURIComponent(token)}`

  /** A person who signs in on /oauth/authenticate, approves, and whose app exchanges the verifier. */
  async function firstVisit(app: AppRecord): Promise<{ page: Page; user: UserRecord; access: AccessToken }> {
    const { user, password } = await makeUser(env.server.domain)
    const rt = await getRequestToken(env.server, app, `${env.site.registered}?state=first`)
    const page = await newPerson(env.browser)
    const response = await open(page, authenticateUrl(rt.token))
    assert.equal(response.status(), 200)
    assert.ok(await page.locator('#password').isVisible(), 'the first time, the person signs in and is asked')
    await page.fill('#username', user.screenName)
    await page.fill('#password', password)
    await submitWith(page, '#allow')
    const landed = new URL(page.url())
    assert.equal(landed.searchParams.get('oauth_token'), rt.token)
    const access = await exchangeAndVerify(env.server, app, rt, landed.searchParams.get('oauth_verifier') ?? '')
    return { page, user, access }
  }

  /** Every document the tab loads while it opens the URL: the statuses and URLs, redirects included. */
  async function documentsWhileOpening(page: Page, url: string): Promise<{ final: Response; chain: { url: string; status: number }[] }> {
    const chain: { url: string; status: number }[] = []
    const record = (response: Response) => {
      if (response.request().resourceType() === 'document') chain.push({ url: response.url(), status: response.status() })
    }
    page.on('response', record)
    try {
      return { final: await open(page, url), chain }
    } finally {
      page.off('response', record)
    }
  }

  test('a returning, signed-in person who already granted a sign-in-enabled app lands on the callback without a page', async () => {
    const app = await makeApp(env.server.domain, { name: 'Quick Sign-In', isSignInEnabled: true, callbackUrls: [env.site.registered] })
    const { page, user, access } = await firstVisit(app)

    const rt = await getRequestToken(env.server, app, `${env.site.registered}?state=again`)
    const { final, chain } = await documentsWhileOpening(page, authenticateUrl(rt.token))
    assert.deepEqual(
      chain.map(({ status }) => status),
      [302, 200],
      'one redirect, then the app: no Latchkey page in between',
    )
    assert.equal(chain[0]?.url, authenticateUrl(rt.token))
    assert.equal(final.status(), 200)
    assert.equal(await mainText(page), CALLBACK_PAGE_TEXT)
    const landed = new URL(page.url())
    assert.equal(`${landed.origin}${landed.pathname}`, env.site.registered)
    assert.equal(landed.searchParams.get('state'), 'again')
    assert.equal(landed.searchParams.get('oauth_token'), rt.token)
    assert.equal(env.site.received.at(-1)?.href, landed.href)

    const second = await exchangeAndVerify(env.server, app, rt, landed.searchParams.get('oauth_verifier') ?? '')
    assert.equal(second.screenName, user.screenName)
    assert.equal(second.token, access.token, 'the same grant: the same access token')
  })

  test('for an app without sign-in enabled, a returning person is asked again, as on authorize', async () => {
    const app = await makeApp(env.server.domain, { name: 'Careful App', isSignInEnabled: false, callbackUrls: [env.site.registered] })
    const { page, user } = await firstVisit(app)

    const rt = await getRequestToken(env.server, app, env.site.registered)
    const response = await open(page, authenticateUrl(rt.token))
    assert.equal(response.status(), 200)
    assert.equal(new URL(page.url()).pathname, '/oauth/authenticate')
    assert.match(await mainText(page), new RegExp(`You are signed in as .*\\(@${user.screenName}\\)`))
    assert.ok(await page.locator('#allow').isVisible())
    await assertAccessible(page, 'the authenticate page of an app without sign-in')
  })
})
