import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOrReuseAccessToken } from '../../src/domain/oauth1/issue-access-token.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { buildTestApp, type TestApp } from '../helpers/test-app.ts'
import { Browser, SESSION_COOKIE } from '../helpers/browser.ts'
import { makeRequestToken, signInAndAllow } from '../helpers/consent-pages.ts'

describe('GET /oauth/authenticate: sign in with Latchkey', () => {
  let t: TestApp
  before(async () => {
    t = await buildTestApp()
  })
  after(() => t.close())

  /** A person signed in in this browser who already granted the app at its level. */
  async function returningPerson(appSettings: Parameters<typeof makeApp>[1]) {
    const app = await makeApp(t.domain, { callbackUrls: ['https://client.example/signin?next=%2Fhome'], ...appSettings })
    const { user, browser, response } = await signInAndAllow(t, app)
    assert.equal(response.statusCode, 302)
    await issueOrReuseAccessToken(t.domain, { appId: app.id, userId: user.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    return { user, app, browser }
  }

  async function authenticate(app: AppRecord, browser: Browser, query = '') {
    const rt = await makeRequestToken(t.domain, app)
    const response = await browser.get(`/oauth/authenticate?oauth_token=${rt.token}${query}`)
    return { rt, response }
  }

  const approvedBy = async (token: string, user: UserRecord) => {
    const stored = await t.domain.stores.requestTokens.findByToken(token)
    return stored?.status === 'authorized' && stored.userId === user.id
  }

  test('sends a returning person straight back to the callback without asking', async () => {
    const { user, app, browser } = await returningPerson({ isSignInEnabled: true })
    const { rt, response } = await authenticate(app, browser)
    assert.equal(response.statusCode, 302)
    const location = new URL(String(response.headers.location))
    assert.equal(location.searchParams.get('next'), '/home')
    assert.equal(location.searchParams.get('oauth_token'), rt.token)
    assert.match(location.searchParams.get('oauth_verifier') ?? '', /^[A-Za-z0-9]{32}$/)
    assert.ok(await approvedBy(rt.token, user))
  })

  test('a HEAD request approves nothing; the GET that follows does', async () => {
    const { user, app, browser } = await returningPerson({ isSignInEnabled: true })
    const rt = await makeRequestToken(t.domain, app)
    const url = `/oauth/authenticate?oauth_token=${rt.token}`
    const head = await t.app.inject({ method: 'HEAD', url, remoteAddress: browser.address, cookies: { [SESSION_COOKIE]: browser.cookies.get(SESSION_COOKIE)! } })
    assert.equal(head.headers.location, undefined)
    assert.equal(await approvedBy(rt.token, user), false)
    const get = await browser.get(url)
    assert.equal(get.statusCode, 302)
    assert.ok(await approvedBy(rt.token, user))
  })

  test('asks as authorize does when the app does not have sign-in enabled', async () => {
    const { user, app, browser } = await returningPerson({ isSignInEnabled: false })
    const { rt, response } = await authenticate(app, browser)
    assert.equal(response.statusCode, 200)
    assert.match(response.body, /id="allow"/)
    assert.match(response.body, /You are signed in as/)
    assert.match(response.body, /action="\/oauth\/authenticate"/)
    assert.equal(await approvedBy(rt.token, user), false)
  })

  test('asks for the password when force_login=true', async () => {
    const { user, app, browser } = await returningPerson({ isSignInEnabled: true })
    const { rt, response } = await authenticate(app, browser, '&force_login=true')
    assert.equal(response.statusCode, 200)
    assert.match(response.body, /name="password"/)
    assert.equal(await approvedBy(rt.token, user), false)
  })

  test('asks when the person granted the app only at another access level', async () => {
    const { app, browser } = await returningPerson({ isSignInEnabled: true, accessLevel: 'read-write' })
    const rt = await makeRequestToken(t.domain, app, { accessLevel: 'read-write-directmessages' })
    const response = await browser.get(`/oauth/authenticate?oauth_token=${rt.token}`)
    assert.equal(response.statusCode, 200)
    assert.match(response.body, /Read and send your direct messages\./)
  })

  test('asks a signed-out visitor to sign in', async () => {
    const { app } = await returningPerson({ isSignInEnabled: true })
    const { response } = await authenticate(app, new Browser(t.app))
    assert.equal(response.statusCode, 200)
    assert.match(response.body, /name="password"/)
  })
})
