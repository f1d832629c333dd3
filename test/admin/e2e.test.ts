// Issue 13: a platform that only speaks to the admin API registers a person and an app, the app runs
// the three-legged flow with the npm `oauth` client and the consent page, and the platform then sees
// and withdraws the authorization: the access token answers 401 code 89 from the next request on.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import oauthPkg from 'oauth'
import { consentInBrowser } from '../helpers/consent-pages.ts'
import { startAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'

const promised = <T>(run: (done: (error: unknown, ...values: unknown[]) => void) => void): Promise<unknown[]> =>
  new Promise((resolve, reject) => run((error, ...values) => (error ? reject(new Error(JSON.stringify(error))) : resolve(values as T[]))))

function signedGet(client: oauthPkg.OAuth, url: string, token: string, secret: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    client.get(url, token, secret, (error, data, response) => {
      if (!response) return reject(new Error(JSON.stringify(error)))
      resolve({ status: response.statusCode ?? 0, body: String(data ?? '') })
    })
  })
}

let server: AdminTestServer
before(async () => {
  server = await startAdminTestServer()
})
after(() => server.close())

test('admin API only: user and app, the full flow through the consent page, the authorization listed, withdrawn, and the token refused', async () => {
  const person = await server.admin('POST', '/admin/v1/users', { screen_name: 'katherine', password: 'orbital mechanics', name: 'Katherine Johnson' })
  assert.equal(person.status, 201, person.text)
  const registered = await server.admin('POST', '/admin/v1/apps', {
    name: 'Trajectory',
    owner: person.json.user_id,
    callbacks: ['https://client.example/cb'],
    type: 'web',
    sign_in: false,
    access_level: 'read',
  })
  assert.equal(registered.status, 201, registered.text)
  const { app_id: appId, consumer_key: key, consumer_secret: secret } = registered.json

  const client = new oauthPkg.OAuth(`${server.url}/oauth/request_token`, `${server.url}/oauth/access_token`, key, secret, '1.0A', 'https://client.example/cb', 'HMAC-SHA1')
  const [requestToken, requestSecret] = (await promised((done) => client.getOAuthRequestToken(done))) as [string, string]
  const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${encodeURIComponent(requestToken)}`, {
    username: 'katherine',
    password: 'orbital mechanics',
  })
  assert.ok(outcome.kind === 'redirect', JSON.stringify(outcome))
  const verifier = outcome.query.get('oauth_verifier')
  assert.ok(verifier)
  const [accessToken, accessSecret] = (await promised((done) => client.getOAuthAccessToken(requestToken, requestSecret, verifier, done))) as [string, string]
  const verify = `${server.url}/1.1/account/verify_credentials.json`
  assert.equal((await signedGet(client, verify, accessToken, accessSecret)).status, 200)

  const listed = await server.admin('GET', `/admin/v1/users/${person.json.user_id}/authorizations`)
  assert.equal(listed.status, 200, listed.text)
  assert.equal(listed.json.data.length, 1)
  assert.deepEqual({ ...listed.json.data[0], authorized_at: undefined }, { app_id: appId, app_name: 'Trajectory', access_level: 'read', authorized_at: undefined })
  assert.ok(!Number.isNaN(Date.parse(listed.json.data[0].authorized_at)))

  const withdrawn = await server.admin('DELETE', `/admin/v1/users/${person.json.user_id}/authorizations/${appId}`)
  assert.equal(withdrawn.status, 204, withdrawn.text)
  const refused = await signedGet(client, verify, accessToken, accessSecret)
  assert.equal(refused.status, 401)
  assert.deepEqual(JSON.parse(refused.body), { errors: [{ code: 89, message: 'Invalid or expired token.' }] })
  assert.deepEqual((await server.admin('GET', `/admin/v1/users/${person.json.user_id}/authorizations`)).json, { data: [] })
  assert.equal((await server.admin('DELETE', `/admin/v1/users/${person.json.user_id}/authorizations/${appId}`)).status, 404)

  const trail = await server.admin('GET', `/admin/v1/audit?app_id=${appId}&event=authorization.revoked`)
  assert.equal(trail.json.data.length, 1)
  assert.equal(trail.json.data[0].detail.actor, `admin_token:${server.tokenId}`)
})

test('a disabled person cannot sign in and their access tokens get 401 code 89 until they are enabled again', async () => {
  const person = await server.admin('POST', '/admin/v1/users', { screen_name: 'disabled1', password: 'long enough' })
  const registered = await server.admin('POST', '/admin/v1/apps', {
    name: 'Paused',
    owner: person.json.user_id,
    callbacks: ['https://client.example/cb'],
    type: 'web',
    sign_in: false,
    access_level: 'read',
  })
  const { app_id: appId, consumer_key: key, consumer_secret: secret } = registered.json
  const owned = (await server.admin('POST', `/admin/v1/apps/${appId}/owner-token`)).json
  const client = new oauthPkg.OAuth(`${server.url}/oauth/request_token`, `${server.url}/oauth/access_token`, key, secret, '1.0A', 'https://client.example/cb', 'HMAC-SHA1')
  const verify = () => signedGet(client, `${server.url}/1.1/account/verify_credentials.json`, owned.oauth_token, owned.oauth_token_secret)
  assert.equal((await verify()).status, 200)

  const disabled = await server.admin('PATCH', `/admin/v1/users/${person.json.user_id}`, { disabled: true })
  assert.equal(disabled.status, 200, disabled.text)
  assert.equal(disabled.json.disabled, true)
  const refused = await verify()
  assert.equal(refused.status, 401)
  assert.deepEqual(JSON.parse(refused.body), { errors: [{ code: 89, message: 'Invalid or expired token.' }] })
  const [requestToken] = (await promised((done) => client.getOAuthRequestToken(done))) as [string]
  const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${encodeURIComponent(requestToken)}`, { username: 'disabled1', password: 'long enough' })
  assert.notEqual(outcome.kind, 'redirect', 'a disabled person cannot sign in')

  const enabled = await server.admin('PATCH', `/admin/v1/users/${person.json.user_id}`, { disabled: false })
  assert.equal(enabled.json.disabled, false)
  assert.equal((await verify()).status, 200)
})
