// Issue 30, "Tests": unmodified client libraries through OAuth 2.0 user context (authorization code
// with PKCE, refresh, revoke, /2/users/me): twitter-api-v2 with the consent given in Chromium, and
// Python's requests-oauthlib OAuth2Session (Debian's python3-requests-oauthlib) with the consent
// given over plain HTTP (test/helpers/consent-pages.ts).
import assert from 'node:assert/strict'
import { Agent } from 'node:http'
import { fileURLToPath } from 'node:url'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { TwitterApi } from 'twitter-api-v2'
// The plugin the package exports as latchkey/twitter-api-v2 (docs/clients.md).
import { latchkey } from '../../../src/clients/twitter-api-v2.ts'
import { setOAuth2Client } from '../../../src/domain/oauth2-user/clients.ts'
import type { AppRecord, UserRecord } from '../../../src/storage/records.ts'
import { consentInBrowser } from '../../helpers/consent-pages.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { startTestServer, type TestServer } from '../../helpers/test-app.ts'
import { launchBrowser, newPerson, open, skipReason, submitWith } from '../browser/browser.ts'
import { startCallbackSite, type CallbackSite } from '../browser/oauth.ts'
import { pythonSkip, runPythonFlow } from './python-flow.ts'

const SCRIPT = fileURLToPath(new URL('./requests_oauthlib_oauth2_flow.py', import.meta.url))
const { unavailable, skip: pythonSkipped } = pythonSkip()

describe('OAuth 2.0 user context through real client libraries', () => {
  let server: TestServer
  let person: { user: UserRecord; password: string }
  let site: CallbackSite
  before(async () => {
    server = await startTestServer()
    person = await makeUser(server.domain, { name: 'Ada Example' })
    site = await startCallbackSite()
  })
  after(async () => {
    await site?.close()
    await server?.close()
  })

  async function confidentialApp(): Promise<{ app: AppRecord; clientId: string; clientSecret: string }> {
    const app = await makeApp(server.domain, { callbackUrls: [site.registered], accessLevel: 'read-write' })
    const change = await setOAuth2Client(server.domain, { appId: app.id, setting: 'confidential' })
    return { app, clientId: change.client!.clientId, clientSecret: change.newSecret! }
  }

  test('twitter-api-v2: the link, consent in Chromium, loginWithOAuth2, v2.me, refreshOAuth2Token, revokeOAuth2Token', { skip: skipReason, timeout: 90_000 }, async () => {
    const { clientId, clientSecret } = await confidentialApp()
    const client = new TwitterApi({ clientId, clientSecret }, { plugins: [latchkey(server.url)], httpAgent: new Agent() })
    const link = client.generateOAuth2AuthLink(site.registered, { scope: ['tweet.read', 'users.read', 'offline.access'] })
    assert.ok(link.url.startsWith(`${server.url}/i/oauth2/authorize?`), link.url)

    let browser: Browser | undefined
    try {
      browser = await launchBrowser()
      const page = await newPerson(browser)
      assert.equal((await open(page, link.url)).status(), 200)
      await page.fill('#username', person.user.screenName)
      await page.fill('#password', person.password)
      await submitWith(page, '#allow')
    } finally {
      await browser?.close()
    }
    const callback = site.received.at(-1)
    assert.ok(callback, 'the browser landed on the app')
    assert.equal(callback.searchParams.get('state'), link.state)
    const code = callback.searchParams.get('code')
    assert.ok(code)

    const login = await client.loginWithOAuth2({ code, codeVerifier: link.codeVerifier, redirectUri: site.registered })
    assert.deepEqual(login.scope.sort(), ['offline.access', 'tweet.read', 'users.read'])
    assert.equal(login.expiresIn, 7200)
    assert.ok(login.refreshToken)
    const me = await login.client.v2.me()
    assert.deepEqual(me.data, { id: person.user.id, name: 'Ada Example', username: person.user.screenName })

    const refreshed = await client.refreshOAuth2Token(login.refreshToken)
    assert.notEqual(refreshed.accessToken, login.accessToken)
    assert.equal((await refreshed.client.v2.me()).data.id, person.user.id)
    await assert.rejects(login.client.v2.me(), (error: { code?: number }) => error.code === 401, 'the token a refresh replaced is refused')

    assert.deepEqual(await client.revokeOAuth2Token(refreshed.refreshToken!, 'refresh_token'), { revoked: true })
    await assert.rejects(refreshed.client.v2.me(), (error: { code?: number }) => error.code === 401, 'revoking the refresh token ended the grant')
  })

  test('requests-oauthlib is installed for Debian’s python3 (a failure only under CI)', { skip: pythonSkipped }, () => {
    assert.equal(unavailable, undefined, unavailable)
  })

  test('requests-oauthlib OAuth2Session: PKCE, fetch_token with Basic, /2/users/me, refresh_token', { skip: pythonSkipped, timeout: 60_000 }, async () => {
    const { clientId, clientSecret } = await confidentialApp()
    interface Result {
      error?: string
      token: Record<string, unknown>
      me: { status: number; body: unknown }
      refreshed_is_new: boolean
      me_after_refresh: { status: number; body: unknown }
      me_with_old_token: { status: number; body: unknown }
    }
    const result = await runPythonFlow<Result>(SCRIPT, [server.url, clientId, clientSecret, site.registered], async (url) => {
      assert.ok(url.startsWith(`${server.url}/i/oauth2/authorize?`), url)
      const outcome = await consentInBrowser(url, { username: person.user.screenName, password: person.password })
      assert.ok(outcome.kind === 'redirect', `the consent page redirects: ${JSON.stringify(outcome)}`)
      return outcome.location
    })
    assert.deepEqual(result.token, { token_type: 'bearer', expires_in: 7200, access_token: true, scope: ['tweet.read', 'users.read', 'offline.access'], refresh_token: true })
    assert.deepEqual(result.me, { status: 200, body: { data: { id: person.user.id, name: 'Ada Example', username: person.user.screenName } } })
    assert.equal(result.refreshed_is_new, true)
    assert.equal(result.me_after_refresh.status, 200)
    assert.deepEqual(result.me_with_old_token, { status: 401, body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' } })
  })
})
