import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOwnerToken } from '../../../src/domain/registry/owner-token.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { errorCode, send, signRequest, signedFetch } from '../../helpers/oauth1-client.ts'
import { startTestServer, type TestServer } from '../../helpers/test-app.ts'
import { Browser } from '../../helpers/browser.ts'

/** The base strings a failures page shows, newest first, with their reasons. */
function failuresOf(page: string): Array<{ reason: string; baseString: string | undefined; line: string; parameters: string | undefined }> {
  return [...page.matchAll(/<li class="failure">([\s\S]*?)<\/li>/g)].map(([, item = '']) => ({
    reason: /<span class="muted">\((\w+)\)<\/span>/.exec(item)?.[1] ?? '',
    baseString: /data-reason="\w+">([^<]*)<\/code>/.exec(item)?.[1]?.replaceAll('&amp;', '&'),
    line: /<code>([^<]*)<\/code>/.exec(item)?.[1]?.replaceAll('&amp;', '&') ?? '',
    parameters: /<code data-parameters>([^<]*)<\/code>/.exec(item)?.[1],
  }))
}

describe("the console's signature failures of an app", () => {
  let t: TestServer
  before(async () => {
    // Behind a (trusted) TLS-terminating proxy on loopback: X-Forwarded-Proto is believed.
    t = await startTestServer({ http: { trustProxy: ['127.0.0.1'] } })
  })
  after(() => t.close())

  async function developerWithApp() {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { owner: user })
    const browser = new Browser(t.app, `10.46.0.${Math.floor(Math.random() * 200)}`)
    await browser.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })
    // The failures are written off the 401's path: wait for the writes handed over, then read the page.
    const failures = async () => {
      await t.domain.signatureFailures?.settled()
      return failuresOf((await browser.get(`/console/apps/${app.id}/failures`)).body)
    }
    return { user, app, browser, failures }
  }

  test('a wrong secret: 401 code 32 for the client, and a bad_signature with the base string the client also built', async () => {
    const { app, failures } = await developerWithApp()
    const url = `${t.url}/oauth/request_token`
    const wrong = { key: app.consumerKey, secret: 'not-the-secret' }
    const signed = signRequest({ consumer: wrong, url, oauth: { oauth_callback: 'oob' } })
    const answer = await send(signed)
    assert.equal(answer.status, 401)
    assert.equal(errorCode(answer), 32)
    const [failure] = await failures()
    assert.equal(failure?.reason, 'bad_signature')
    assert.equal(failure?.line, `POST ${url}`)
    assert.match(failure?.baseString ?? '', /^POST&http%3A%2F%2F127\.0\.0\.1%3A\d+%2Foauth%2Frequest_token&/)
    assert.match(failure?.baseString ?? '', new RegExp(`oauth_nonce%3D${signed.oauthParams.oauth_nonce}%26`))
  })

  test('signing http:// behind a proxy that received https://, and leaving a query parameter out: the base strings show the difference', async () => {
    const { app, failures } = await developerWithApp()
    const { token: access } = await issueOwnerToken(t.domain, app.id)
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const verify = `${t.url}/1.1/account/verify_credentials.json`
    const behindProxy = await signedFetch({ consumer, token: { key: access.token, secret: access.secret }, method: 'GET', url: verify, extraHeaders: { 'x-forwarded-proto': 'https' } })
    assert.equal(behindProxy.status, 401)
    assert.equal(errorCode(behindProxy), 32)

    const signedWithout = signRequest({ consumer, token: { key: access.token, secret: access.secret }, method: 'GET', url: verify })
    const missingParam = await send({ ...signedWithout, url: `${verify}?include_email=true` })
    assert.equal(missingParam.status, 401)

    const [query, proxy] = await failures()
    assert.equal(proxy?.reason, 'bad_signature')
    assert.match(proxy?.baseString ?? '', /^GET&https%3A%2F%2F127\.0\.0\.1/, 'Latchkey signs the URL the client was given: https')
    assert.equal(query?.reason, 'bad_signature')
    assert.match(query?.baseString ?? '', /include_email%3Dtrue/, 'the parameter the client left out is in the base string')
    assert.match(query?.parameters ?? '', /^header: (oauth_\w+, )+oauth_\w+; query: include_email$/, 'where each parameter came from, names only')
    for (const name of ['oauth_consumer_key', 'oauth_token', 'oauth_signature', 'oauth_nonce']) assert.ok(query?.parameters?.includes(name), name)
    assert.doesNotMatch(proxy?.parameters ?? '', /query|body/, 'a header-only request names only the header')
    for (const f of [proxy, query]) {
      assert.doesNotMatch(f?.baseString ?? '', new RegExp(app.consumerSecret))
      assert.doesNotMatch(f?.baseString ?? '', new RegExp(access.secret))
    }
  })

  test('a stale timestamp and a replayed nonce are named; nothing on the page holds a secret', async () => {
    const { app, browser, failures } = await developerWithApp()
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const url = `${t.url}/oauth/request_token`
    const stale = await signedFetch({ consumer, url, oauth: { oauth_callback: 'oob' }, timestamp: Math.floor(Date.now() / 1000) - 3600 })
    assert.equal(errorCode(stale), 135)
    const once = signRequest({ consumer, url, oauth: { oauth_callback: 'oob' } })
    assert.equal((await send(once)).status, 200)
    assert.equal((await send(once)).status, 401)
    const [replay, late] = await failures()
    assert.equal(late?.reason, 'timestamp_out_of_bounds')
    assert.equal(late?.baseString, undefined)
    assert.equal(replay?.reason, 'nonce_reused')
    const page = (await browser.get(`/console/apps/${app.id}/failures`)).body
    assert.doesNotMatch(page, new RegExp(app.consumerSecret))
  })

  test("another developer's failures page is a 404", async () => {
    const a = await developerWithApp()
    const b = await developerWithApp()
    const answer = await b.browser.get(`/console/apps/${a.app.id}/failures`)
    assert.equal(answer.statusCode, 404)
  })
})
