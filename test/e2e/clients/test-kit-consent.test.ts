// Issue 47, item 3's tests: consent by control call yields a verifier, a PIN, a code, access_denied,
// each exchanged by a real client library (npm `oauth`, twitter-api-v2) for a token that works; and
// --auto-consent, with a plain HTTP client that follows the authorize page's redirect. Real sockets:
// the public listener, the admin listener and the app's callback site.
import assert from 'node:assert/strict'
import { Agent } from 'node:http'
import { after, before, describe, test } from 'node:test'
import oauthPkg from 'oauth'
import { TwitterApi } from 'twitter-api-v2'
// The plugin the package exports as latchkey/twitter-api-v2 (docs/clients.md).
import { latchkey } from '../../../src/clients/twitter-api-v2.ts'
import { testConsentRoutes } from '../../../src/admin/routes/test-kit-consent.ts'
import { setOAuth2Client } from '../../../src/domain/oauth2-user/clients.ts'
import type { AppRecord, UserRecord } from '../../../src/storage/records.ts'
import { startAdminTestServer, type AdminTestServer } from '../../helpers/admin.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { startTestServer, type TestServer } from '../../helpers/test-app.ts'
import { startCallbackSite, type CallbackSite } from '../browser/oauth.ts'

type Pair = { token: string; secret: string }

const requestToken = (client: oauthPkg.OAuth): Promise<Pair> =>
  new Promise((resolve, reject) => client.getOAuthRequestToken((error, token, secret) => (error ? reject(error) : resolve({ token, secret }))))

const accessToken = (client: oauthPkg.OAuth, rt: Pair, verifier: string): Promise<Pair & { screenName: unknown }> =>
  new Promise((resolve, reject) =>
    client.getOAuthAccessToken(rt.token, rt.secret, verifier, (error, token, secret, results) => (error ? reject(error) : resolve({ token, secret, screenName: results.screen_name }))),
  )

/** verify_credentials signed by the library with the access token: the person it names. */
const verifyCredentials = (client: oauthPkg.OAuth, access: Pair): Promise<{ status: number; screenName: unknown }> =>
  new Promise((resolve, reject) =>
    client.get(`${baseOf(client)}/1.1/account/verify_credentials.json`, access.token, access.secret, (error, data, response) => {
      if (!response) return reject(new Error(JSON.stringify(error)))
      resolve({ status: response.statusCode ?? 0, screenName: response.statusCode === 200 ? JSON.parse(String(data)).screen_name : undefined })
    }),
  )

const bases = new WeakMap<oauthPkg.OAuth, string>()
const baseOf = (client: oauthPkg.OAuth) => bases.get(client)!

function oauthClient(base: string, app: AppRecord, callback: string): oauthPkg.OAuth {
  const client = new oauthPkg.OAuth(`${base}/oauth/request_token`, `${base}/oauth/access_token`, app.consumerKey, app.consumerSecret, '1.0A', callback, 'HMAC-SHA1')
  bases.set(client, base)
  return client
}

describe('consent by control call, with real client libraries', () => {
  const CALLBACK = 'https://client.example/cb'
  let server: AdminTestServer
  let person: UserRecord
  let app: AppRecord
  before(async () => {
    server = await startAdminTestServer({ adminRoutes: [testConsentRoutes] })
    person = (await makeUser(server.domain, { screenName: 'ci_person' })).user
    app = await makeApp(server.domain, { callbackUrls: [CALLBACK], accessLevel: 'read-write' })
  })
  after(() => server.close())

  const consent1 = (oauthToken: string, decision: 'allow' | 'deny') => server.admin('POST', '/admin/v1/test/consent/oauth1', { oauth_token: oauthToken, screen_name: 'ci_person', decision })

  test('npm oauth: request_token, the control call, access_token with the verifier, a signed verify_credentials of the person', async () => {
    const client = oauthClient(server.url, app, CALLBACK)
    const rt = await requestToken(client)
    const answer = await consent1(rt.token, 'allow')
    assert.equal(answer.status, 200, answer.text)
    const verifier = new URL(answer.json.location).searchParams.get('oauth_verifier')!
    const access = await accessToken(client, rt, verifier)
    assert.equal(access.screenName, person.screenName)
    assert.deepEqual(await verifyCredentials(client, access), { status: 200, screenName: person.screenName })
  })

  test('npm oauth, oob: the PIN is the verifier', async () => {
    const desktop = await makeApp(server.domain, { type: 'desktop', callbackUrls: [], accessLevel: 'read' })
    const client = oauthClient(server.url, desktop, 'oob')
    const rt = await requestToken(client)
    const answer = await consent1(rt.token, 'allow')
    assert.match(answer.json.pin, /^\d{7}$/, answer.text)
    const access = await accessToken(client, rt, answer.json.pin)
    assert.deepEqual(await verifyCredentials(client, access), { status: 200, screenName: person.screenName })
  })

  test('npm oauth, deny: denied=<token> at the callback, and the library cannot get an access token', async () => {
    const client = oauthClient(server.url, app, CALLBACK)
    const rt = await requestToken(client)
    const answer = await consent1(rt.token, 'deny')
    assert.equal(answer.json.location, `${CALLBACK}?denied=${rt.token}`)
    await assert.rejects(accessToken(client, rt, 'a-guess'), (error: { statusCode?: number }) => error.statusCode === 401)
  })

  test('twitter-api-v2 with PKCE: its authorize link, the control call, loginWithOAuth2 and /2/users/me; deny gives access_denied and the state', async () => {
    const change = await setOAuth2Client(server.domain, { appId: app.id, setting: 'confidential' })
    const client = new TwitterApi({ clientId: change.client!.clientId, clientSecret: change.newSecret! }, { plugins: [latchkey(server.url)], httpAgent: new Agent() })
    const link = client.generateOAuth2AuthLink(CALLBACK, { scope: ['tweet.read', 'users.read'] })
    const answer = await server.admin('POST', '/admin/v1/test/consent/oauth2', { screen_name: 'ci_person', decision: 'allow', authorize_url: link.url })
    assert.equal(answer.status, 200, answer.text)
    const location = new URL(answer.json.location)
    assert.equal(location.searchParams.get('state'), link.state)
    const login = await client.loginWithOAuth2({ code: location.searchParams.get('code')!, codeVerifier: link.codeVerifier, redirectUri: CALLBACK })
    assert.deepEqual((await login.client.v2.me()).data, { id: person.id, name: person.name, username: person.screenName })

    const denied = client.generateOAuth2AuthLink(CALLBACK, { scope: ['tweet.read'] })
    const refused = await server.admin('POST', '/admin/v1/test/consent/oauth2', { screen_name: 'ci_person', decision: 'deny', authorize_url: denied.url })
    assert.equal(refused.json.location, `${CALLBACK}?error=access_denied&state=${denied.state}`)
  })
})

describe('--auto-consent: every authorize page approves at once as that person', () => {
  let server: TestServer
  let site: CallbackSite
  let person: UserRecord
  before(async () => {
    site = await startCallbackSite()
    server = await startTestServer({ http: { autoConsent: 'auto_person' } })
    person = (await makeUser(server.domain, { screenName: 'auto_person' })).user
  })
  after(async () => {
    await server?.close()
    await site?.close()
  })

  /** A plain HTTP client opening the page and following its redirect to the app's callback site. */
  async function open(url: string): Promise<URL> {
    const answer = await fetch(url, { redirect: 'follow' })
    assert.equal(answer.status, 200, await answer.clone().text())
    assert.equal(answer.url.startsWith(site.registered), true, answer.url)
    return site.received.at(-1)!
  }

  test('OAuth 1.0a, authorize and authenticate: the callback with a verifier npm oauth exchanges; oob: the PIN page', async () => {
    const app = await makeApp(server.domain, { callbackUrls: [site.registered], accessLevel: 'read-write' })
    for (const page of ['authorize', 'authenticate']) {
      const client = oauthClient(server.url, app, site.registered)
      const rt = await requestToken(client)
      const landed = await open(`${server.url}/oauth/${page}?oauth_token=${rt.token}`)
      assert.equal(landed.searchParams.get('oauth_token'), rt.token, page)
      const access = await accessToken(client, rt, landed.searchParams.get('oauth_verifier')!)
      assert.deepEqual(await verifyCredentials(client, access), { status: 200, screenName: person.screenName }, page)
    }
    const desktop = await makeApp(server.domain, { type: 'desktop', callbackUrls: [], accessLevel: 'read' })
    const client = oauthClient(server.url, desktop, 'oob')
    const rt = await requestToken(client)
    const page = await (await fetch(`${server.url}/oauth/authorize?oauth_token=${rt.token}`)).text()
    const pin = /<code id="oauth_pin">(\d{7})<\/code>/.exec(page)?.[1]
    assert.ok(pin, page)
    assert.equal((await accessToken(client, rt, pin)).screenName, person.screenName)
  })

  test('OAuth 2.0: the redirect URI with code and state, exchanged by twitter-api-v2 for a token of the person', async () => {
    const app = await makeApp(server.domain, { callbackUrls: [site.registered], accessLevel: 'read-write' })
    const change = await setOAuth2Client(server.domain, { appId: app.id, setting: 'confidential' })
    const client = new TwitterApi({ clientId: change.client!.clientId, clientSecret: change.newSecret! }, { plugins: [latchkey(server.url)], httpAgent: new Agent() })
    const link = client.generateOAuth2AuthLink(site.registered, { scope: ['tweet.read', 'users.read'] })
    const landed = await open(link.url)
    assert.equal(landed.searchParams.get('state'), link.state)
    const login = await client.loginWithOAuth2({ code: landed.searchParams.get('code')!, codeVerifier: link.codeVerifier, redirectUri: site.registered })
    assert.equal((await login.client.v2.me()).data.username, person.screenName)
  })
})
