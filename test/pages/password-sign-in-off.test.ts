// `--password-sign-in off` with login delegation the one way left (docs/accounts.md): the pages send a
// signed-out visitor to it at once, a posted password is refused (1116) and counted nowhere, and
// the console has no sign-up.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { delegationMethod } from '../../src/pages/sign-in-methods.ts'
import { setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { Browser } from '../helpers/browser.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { injectedTestServer, type TestServer } from '../helpers/test-app.ts'

describe('password sign-in off', () => {
  let server: TestServer

  before(async () => {
    server = await injectedTestServer({
      http: {
        allowSignup: true,
        signIn: { password: false, methods: [delegationMethod('Platform')] },
        delegation: { loginUrl: new URL('https://platform.example/login'), label: 'Platform', challengeSeconds: 600, policy: { create: true } },
      },
    })
  })
  after(() => server?.close())

  const startOf = (returnTo: string) => `/login/delegated?return_to=${encodeURIComponent(returnTo)}`

  async function requestToken(): Promise<string> {
    const app = await makeApp(server.domain)
    const answer = await server.signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    return answer.form.oauth_token!
  }

  test('a signed-out visitor of a consent page or the console goes straight to the platform', async () => {
    const browser = new Browser(server.app)
    const token = await requestToken()
    const consent = await browser.get(`/oauth/authorize?oauth_token=${token}&screen_name=carol`)
    assert.equal(consent.statusCode, 302)
    assert.equal(consent.headers.location, startOf(`/oauth/authorize?oauth_token=${token}&screen_name=carol`))
    const console = await browser.get('/console/apps/1')
    assert.equal(console.statusCode, 302)
    assert.equal(console.headers.location, startOf('/console/apps/1'))
    const started = await browser.get(String(consent.headers.location))
    assert.match(String(started.headers.location), /^https:\/\/platform\.example\/login\?login_challenge=\w{43}$/)
  })

  test("an OAuth 2.0 consent page too, and the app it is for is the challenge's", async () => {
    const app = await makeApp(server.domain, { name: 'Pocket', callbackUrls: ['https://pocket.example/cb'] })
    const { client } = await setOAuth2Client(server.domain, { appId: app.id, setting: 'public' })
    const query = new URLSearchParams({ response_type: 'code', client_id: client!.clientId, redirect_uri: 'https://pocket.example/cb', scope: 'users.read', state: 's', code_challenge: 'c'.repeat(43), code_challenge_method: 'plain' })
    const browser = new Browser(server.app)
    const consent = await browser.get(`/i/oauth2/authorize?${query}`)
    assert.equal(consent.statusCode, 302)
    assert.equal(consent.headers.location, startOf(`/i/oauth2/authorize?${query}`))
    const started = await browser.get(String(consent.headers.location))
    const challenge = new URL(String(started.headers.location)).searchParams.get('login_challenge')!
    assert.equal((await server.domain.stores.externalSignIns.find(challenge))?.appId, app.id)
  })

  test('a posted password is refused with 1116 and counted nowhere, even the right one', async () => {
    const { user, password } = await makeUser(server.domain)
    const browser = new Browser(server.app)
    const signInPage = await browser.get('/console/apps/1')
    assert.equal(signInPage.statusCode, 302)
    // The cookie is `<csrf>.<signature>`: the value a form would carry.
    const csrf = browser.cookies.get('latchkey_session')!.split('.')[0]!
    const token = await requestToken()
    const answers = [
      await browser.post(`/oauth/authorize`, { csrf_token: csrf, oauth_token: token, action: 'allow', username: user.screenName, password }),
      await browser.post('/console/sign-in', { csrf_token: csrf, username: user.screenName, password }),
    ]
    for (const answer of answers) {
      assert.equal(answer.statusCode, 403, answer.body)
      assert.match(answer.body, /Signing in with a password is turned off/)
    }
    const rows = await server.domain.stores.listings.auditPage({ limit: 50, event: 'sign_in.failed' })
    const succeeded = await server.domain.stores.listings.auditPage({ limit: 50, event: 'sign_in.succeeded' })
    assert.equal(rows.length + succeeded.length, 0, 'no sign-in was counted or audited')
  })

  test('the console has no sign-up', async () => {
    const answer = await new Browser(server.app).get('/console/signup')
    assert.equal(answer.statusCode, 404)
    assert.match(answer.body, /Sign-up is closed/)
  })
})
