// Issue 29 (2): while a person is disabled, every credential of theirs is refused on every path —
// the signed API, introspection, the exchange of a request token they approved before, and the
// owner token of their app — and enabling them again brings it all back.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { errorCode } from '../helpers/oauth1-client.ts'

const FORM = 'application/x-www-form-urlencoded'
const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`

describe('a disabled person, on every path', () => {
  let server: AdminTestServer
  let resourceServer: { key: string; secret: string }
  before(async () => {
    server = await injectedAdminTestServer()
    const operator = (await server.admin('POST', '/admin/v1/users', { screen_name: 'operator', password: 'long enough' })).json.user_id
    const made = await server.admin('POST', '/admin/v1/apps', { name: 'Resource server', owner: operator, callbacks: [], type: 'web', sign_in: false, access_level: 'read', resource_server: true })
    assert.equal(made.status, 201, made.text)
    resourceServer = { key: made.json.consumer_key, secret: made.json.consumer_secret }
  })
  after(() => server.close())

  test('is refused everywhere while disabled, and let in again once enabled', async () => {
    const person = (await server.admin('POST', '/admin/v1/users', { screen_name: 'paused', password: 'long enough' })).json.user_id as string
    const made = await server.admin('POST', '/admin/v1/apps', { name: 'Their app', owner: person, callbacks: [], type: 'web', sign_in: false, access_level: 'read' })
    const appId = made.json.app_id as string
    const consumer = { key: made.json.consumer_key as string, secret: made.json.consumer_secret as string }
    const owned = (await server.admin('POST', `/admin/v1/apps/${appId}/owner-token`)).json
    const access = { key: owned.oauth_token as string, secret: owned.oauth_token_secret as string }
    const requested = await server.signedFetch({ consumer, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    const requestToken = { key: requested.form.oauth_token!, secret: requested.form.oauth_token_secret! }
    assert.ok(await server.domain.stores.requestTokens.authorize(requestToken.key, person, '7654321', server.domain.clock.nowMs()))

    const paths = async () => {
      const verify = await server.signedFetch({ consumer, token: access, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
      const introspected = await server.send({
        method: 'POST',
        url: `${server.url}/oauth2/introspect`,
        headers: { authorization: basic(resourceServer.key, resourceServer.secret), 'content-type': FORM },
        body: `token=${encodeURIComponent(access.key)}&token_type_hint=oauth1_access_token`,
      })
      const ownerToken = await server.admin('POST', `/admin/v1/apps/${appId}/owner-token`)
      return { verify: [verify.status, errorCode(verify) ?? null], introspection: introspected.json.active, ownerToken: ownerToken.status }
    }
    const exchange = () => server.signedFetch({ consumer, token: requestToken, url: `${server.url}/oauth/access_token`, oauth: { oauth_verifier: '7654321' } })

    assert.equal((await server.admin('PATCH', `/admin/v1/users/${person}`, { disabled: true })).status, 200)
    assert.deepEqual(await paths(), { verify: [401, 89], introspection: false, ownerToken: 400 })
    const refused = await exchange()
    assert.deepEqual([refused.status, errorCode(refused)], [401, 89], refused.text)
    const ownerRefusal = await server.admin('POST', `/admin/v1/apps/${appId}/owner-token`)
    assert.match(ownerRefusal.json.detail, /is disabled; enable them first/)

    assert.equal((await server.admin('PATCH', `/admin/v1/users/${person}`, { disabled: false })).status, 200)
    assert.deepEqual(await paths(), { verify: [200, null], introspection: true, ownerToken: 200 })
    const exchanged = await exchange()
    assert.equal(exchanged.status, 200, 'the refused exchange left the request token as it was')
    assert.equal(exchanged.form.user_id, person)
  })
})
