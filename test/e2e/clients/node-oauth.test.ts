// Issue 3, "tests that must exist": the web flow and the oob PIN flow driven by the npm `oauth`
// client library (unmodified, as its README uses it), with the consent step done over plain HTTP
// (test/helpers/consent-pages.ts), each ending in verify_credentials, an invalidation and 401/89.
import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { after, before, describe, test } from 'node:test'
import oauthPkg from 'oauth'
import type { AppRecord, UserRecord } from '../../../src/storage/records.ts'
import { consentInBrowser } from '../../helpers/consent-pages.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { startTestServer, type TestServer } from '../../helpers/test-app.ts'

/** The library's callbacks as promises; an HTTP error keeps its status and body. */
function requestToken(client: oauthPkg.OAuth): Promise<{ token: string; secret: string; results: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    client.getOAuthRequestToken((error, token, secret, results) => (error ? reject(error) : resolve({ token, secret, results })))
  })
}

function accessToken(client: oauthPkg.OAuth, token: string, secret: string, verifier: string): Promise<{ token: string; secret: string; results: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    client.getOAuthAccessToken(token, secret, verifier, (error, at, ats, results) => (error ? reject(error) : resolve({ token: at, secret: ats, results })))
  })
}

interface Answer {
  status: number
  body: string
  headers: IncomingMessage['headers']
}

/** A signed GET or POST through the library; resolves with the answer whatever its status. */
function call(client: oauthPkg.OAuth, method: 'GET' | 'POST', url: string, token: string, secret: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const done: oauthPkg.dataCallback = (error, data, response) => {
      if (!response) return reject(error instanceof Error ? error : new Error(`no response: ${JSON.stringify(error)}`))
      resolve({ status: response.statusCode ?? 0, body: String(data ?? ''), headers: response.headers })
    }
    if (method === 'GET') client.get(url, token, secret, done)
    else client.post(url, token, secret, '', 'application/x-www-form-urlencoded', done)
  })
}

describe('the npm oauth client library, through the whole OAuth 1.0a flow', () => {
  let server: TestServer
  let app: AppRecord
  let person: { user: UserRecord; password: string }

  before(async () => {
    server = await startTestServer()
    person = await makeUser(server.domain, { name: 'Margaret Hamilton' })
    app = await makeApp(server.domain, { callbackUrls: ['https://client.example/cb'], accessLevel: 'read-write' })
  })
  after(() => server.close())

  const client = (callback: string) =>
    new oauthPkg.OAuth(`${server.url}/oauth/request_token`, `${server.url}/oauth/access_token`, app.consumerKey, app.consumerSecret, '1.0A', callback, 'HMAC-SHA1')

  /** Steps after the verifier: access token, verify_credentials, invalidate, verify_credentials again. */
  async function finish(oauth: oauthPkg.OAuth, rt: { token: string; secret: string }, verifier: string) {
    const access = await accessToken(oauth, rt.token, rt.secret, verifier)
    assert.equal(access.results.user_id, person.user.id)
    assert.equal(access.results.screen_name, person.user.screenName)
    assert.match(access.token, new RegExp(`^${person.user.id}-`))

    const verify = await call(oauth, 'GET', `${server.url}/1.1/account/verify_credentials.json`, access.token, access.secret)
    assert.equal(verify.status, 200, verify.body)
    assert.equal(verify.headers['x-access-level'], 'read-write')
    const me = JSON.parse(verify.body)
    assert.equal(me.id_str, person.user.id)
    assert.equal(me.id, Number(person.user.id))
    assert.equal(me.screen_name, person.user.screenName)
    assert.equal(me.name, 'Margaret Hamilton')

    const invalidate = await call(oauth, 'POST', `${server.url}/1.1/oauth/invalidate_token.json`, access.token, access.secret)
    assert.equal(invalidate.status, 200, invalidate.body)
    assert.deepEqual(JSON.parse(invalidate.body), { access_token: access.token })

    const afterwards = await call(oauth, 'GET', `${server.url}/1.1/account/verify_credentials.json`, access.token, access.secret)
    assert.equal(afterwards.status, 401)
    assert.deepEqual(JSON.parse(afterwards.body), { errors: [{ code: 89, message: 'Invalid or expired token.' }] })
  }

  test('the web flow: the callback keeps its own query and gets oauth_token and oauth_verifier, and the token works until invalidated', async () => {
    const oauth = client('https://client.example/cb?state=1')
    const rt = await requestToken(oauth)
    assert.equal(rt.results.oauth_callback_confirmed, 'true')

    const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${encodeURIComponent(rt.token)}`, {
      username: person.user.screenName,
      password: person.password,
    })
    assert.equal(outcome.kind, 'redirect')
    assert.ok(outcome.kind === 'redirect')
    assert.equal(outcome.status, 302)
    assert.ok(outcome.location.startsWith('https://client.example/cb?state=1&'), outcome.location)
    assert.equal(outcome.query.get('state'), '1')
    assert.equal(outcome.query.get('oauth_token'), rt.token)
    const verifier = outcome.query.get('oauth_verifier')
    assert.ok(verifier)

    await finish(oauth, rt, verifier)
  })

  test('the oob flow: the PIN from the page is the verifier, and the token works until invalidated', async () => {
    const oauth = client('oob')
    const rt = await requestToken(oauth)
    assert.equal(rt.results.oauth_callback_confirmed, 'true')

    const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${encodeURIComponent(rt.token)}`, {
      username: person.user.screenName,
      password: person.password,
    })
    assert.equal(outcome.kind, 'pin')
    assert.ok(outcome.kind === 'pin')
    assert.match(outcome.pin, /^\d{7}$/)

    await finish(oauth, rt, outcome.pin)
  })
})
