// Login delegation (issue 50, docs/accounts.md) in Chromium: an OAuth 1.0a consent page sends the
// person to the platform's own login page (a small app written here), which accepts or rejects
// through the admin API; the browser comes back and the consent goes on. Runs on the pass's backend.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { delegationMethod } from '../../../src/pages/sign-in-methods.ts'
import type { AppRecord } from '../../../src/storage/records.ts'
import { startAdminTestServer, type AdminTestServer } from '../../helpers/admin.ts'
import { makeApp } from '../../helpers/fixtures.ts'
import { startPlatformLogin, PLATFORM_PEOPLE, type PlatformLogin } from '../../helpers/platform-login.ts'
import { testClock } from '../../helpers/test-app.ts'
import { launchBrowser, mainText, newPerson, open, skipReason, submitWith } from './browser.ts'
import { CALLBACK_PAGE_TEXT, exchangeAndVerify, getRequestToken, startCallbackSite, type CallbackSite } from './oauth.ts'

const CHALLENGE_SECONDS = 600

describe('login delegation in Chromium', { skip: skipReason, timeout: 120_000 }, () => {
  let browser: Browser
  let server: AdminTestServer
  let site: CallbackSite
  let platform: PlatformLogin
  let app: AppRecord
  const clock = testClock(Date.now())

  before(async () => {
    browser = await launchBrowser()
    platform = await startPlatformLogin()
    site = await startCallbackSite()
    server = await startAdminTestServer({
      clock,
      http: {
        signIn: { password: true, methods: [delegationMethod('Platform')] },
        delegation: { loginUrl: new URL(platform.loginUrl), label: 'Platform', challengeSeconds: CHALLENGE_SECONDS, policy: { create: true } },
      },
    })
    platform.admin = { url: server.adminUrl, token: server.token }
    app = await makeApp(server.domain, { name: 'Birdwatch', callbackUrls: [site.registered] })
  })

  after(async () => {
    await browser?.close()
    await server?.close()
    await site?.close()
    await platform?.close()
  })

  /** A consent page for a fresh request token, opened in `page`, and the link to the platform followed. */
  async function toPlatform(page: Page, query = '') {
    const requestToken = await getRequestToken(server, app, site.registered)
    const consent = await open(page, `${server.url}/oauth/authorize?oauth_token=${requestToken.token}${query}`)
    assert.equal(consent.status(), 200)
    await page.click('#sign_in_with_login')
    await page.waitForURL((url) => url.href.startsWith(platform.loginUrl))
    return { requestToken, challenge: platform.challenges.at(-1)! }
  }

  const returnUrl = (challenge: string) => `${server.url}/login/delegated/return?login_challenge=${challenge}`

  async function signInAtPlatform(page: Page, username = 'carol') {
    await page.fill('#platform_username', username)
    await page.fill('#platform_password', PLATFORM_PEOPLE[username]?.password ?? 'wrong')
    return submitWith(page, '#platform_sign_in')
  }

  test('accept: back on the consent page signed in as the platform says, and allowing reaches the callback with a working verifier', async () => {
    const page = await newPerson(browser)
    const { requestToken, challenge } = await toPlatform(page, '&screen_name=carol')
    assert.equal(await page.inputValue('#platform_username'), 'carol', "the consent page's screen_name is the challenge's login hint")
    assert.match(await mainText(page), /Platform sign-in for Birdwatch/, 'the admin API named the app')
    const back = await signInAtPlatform(page)
    assert.equal(back.status(), 200)
    assert.ok(page.url().startsWith(`${server.url}/oauth/authorize?oauth_token=${requestToken.token}`), page.url())
    assert.match(await mainText(page), /signed in as Carol Platform \(@carol\)/)
    await submitWith(page, '#allow')
    assert.equal(await mainText(page), CALLBACK_PAGE_TEXT)
    const verifier = new URL(page.url()).searchParams.get('oauth_verifier')
    assert.ok(verifier)
    const access = await exchangeAndVerify(server, app, requestToken, verifier)
    assert.equal(access.screenName, 'carol')
    const user = await server.admin('GET', `/admin/v1/users/${access.userId}`)
    assert.deepEqual(user.json.identities.map((i: { provider: string; subject: string }) => [i.provider, i.subject]), [['login', PLATFORM_PEOPLE.carol!.subject]])

    const cookie = (await page.context().cookies()).find((c) => c.name === 'latchkey_session')
    assert.equal(cookie?.expires, -1, 'remember: false (the platform did not ask): the cookie ends with the browser')
    await open(page, `${server.url}/settings/sessions`)
    assert.match(await mainText(page), /Signed in through Platform/)

    // Replayed: the same return once more is refused, the person stays as they were.
    const replay = await open(page, returnUrl(challenge))
    assert.equal(replay.status(), 410)
    assert.match(await mainText(page), /already been used/)
    await page.context().close()
  })

  test("reject: the page shows the platform's description, and nobody is signed in", async () => {
    const page = await newPerson(browser)
    await toPlatform(page)
    const back = await signInAtPlatform(page, 'mallory')
    assert.equal(back.status(), 403)
    assert.match(await mainText(page), /refused this sign-in.*The platform does not know this person\./)
    await page.context().close()
  })

  test('finished in another browser: refused there (1115), and spent for the first one too', async () => {
    const first = await newPerson(browser)
    const { challenge } = await toPlatform(first)
    const accepted = await server.admin('PUT', `/admin/v1/login-challenges/${challenge}/accept`, { subject: PLATFORM_PEOPLE.carol!.subject, screen_name: 'carol' })
    assert.equal(accepted.status, 200)
    const other = await newPerson(browser)
    // A browser that has been here before: it holds a session cookie of its own.
    await open(other, `${server.url}/console`)
    const there = await open(other, accepted.json.redirect_to)
    assert.equal(there.status(), 403)
    assert.match(await mainText(other), /started in another browser/)
    const here = await open(first, returnUrl(challenge))
    assert.equal(here.status(), 410)
    await first.context().close()
    await other.context().close()
  })

  test('a person disabled in Latchkey is refused whatever the platform says (1110)', async () => {
    const link = await server.domain.stores.identityLinks.find('login', PLATFORM_PEOPLE.carol!.subject)
    assert.ok(link, 'carol was linked by the first test')
    assert.equal((await server.admin('PATCH', `/admin/v1/users/${link.userId}`, { disabled: true })).status, 200)
    const page = await newPerson(browser)
    await toPlatform(page)
    const back = await signInAtPlatform(page)
    assert.equal(back.status(), 403)
    assert.match(await mainText(page), /cannot sign in here/)
    assert.equal((await server.admin('PATCH', `/admin/v1/users/${link.userId}`, { disabled: false })).status, 200)
    await page.context().close()
  })

  // Last: the clock it moves on stays moved (a signed request would be out of bounds after it).
  test('expired: once its lifetime has passed the platform can no longer answer and the return is refused (1114)', async () => {
    const page = await newPerson(browser)
    const { challenge } = await toPlatform(page)
    clock.advance((CHALLENGE_SECONDS + 1) * 1000)
    const late = await server.admin('PUT', `/admin/v1/login-challenges/${challenge}/accept`, { subject: 's', screen_name: 'carol' })
    assert.equal(late.status, 404)
    const back = await open(page, returnUrl(challenge))
    assert.equal(back.status(), 410)
    assert.match(await mainText(page), /took too long and has expired/)
    await page.context().close()
  })
})
