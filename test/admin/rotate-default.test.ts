// Issue 29 (4): rotate-keys through the admin API has the one default of the CLI and the console:
// without a grace period every request, access and bearer token of the app is revoked; with
// grace_seconds the old pair and its tokens keep working.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { errorCode } from '../helpers/oauth1-client.ts'

const FORM = 'application/x-www-form-urlencoded'
const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`

describe('admin rotate-keys: what the old credentials can still do', () => {
  let server: AdminTestServer
  let ownerId: string
  before(async () => {
    server = await injectedAdminTestServer()
    ownerId = (await server.admin('POST', '/admin/v1/users', { screen_name: 'rotor', password: 'long enough' })).json.user_id
  })
  after(() => server.close())

  /** A fresh app with a bearer token, an owner's access token and an authorized request token, all issued under the first key pair. */
  async function appWithCredentials(name: string) {
    const made = await server.admin('POST', '/admin/v1/apps', { name, owner: ownerId, callbacks: [], type: 'web', sign_in: false, access_level: 'read' })
    assert.equal(made.status, 201, made.text)
    const consumer = { key: made.json.consumer_key as string, secret: made.json.consumer_secret as string }
    const issued = await server.send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { authorization: basic(consumer.key, consumer.secret), 'content-type': FORM }, body: 'grant_type=client_credentials' })
    assert.equal(issued.status, 200, issued.text)
    const owner = (await server.admin('POST', `/admin/v1/apps/${made.json.app_id}/owner-token`)).json
    const requested = await server.signedFetch({ consumer, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    assert.equal(requested.status, 200, requested.text)
    const requestToken = { key: requested.form.oauth_token!, secret: requested.form.oauth_token_secret! }
    assert.ok(await server.domain.stores.requestTokens.authorize(requestToken.key, ownerId, '1234567', server.domain.clock.nowMs()))
    return { appId: made.json.app_id as string, consumer, bearer: issued.json.access_token as string, access: { key: owner.oauth_token as string, secret: owner.oauth_token_secret as string }, requestToken }
  }

  /** What each old credential gets now, signed with `consumer`: status and code. */
  async function outcomes(creds: Awaited<ReturnType<typeof appWithCredentials>>, consumer: { key: string; secret: string }) {
    const bearer = await server.send({ method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json`, headers: { authorization: `Bearer ${creds.bearer}` } })
    const access = await server.signedFetch({ consumer, token: creds.access, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
    const exchange = await server.signedFetch({ consumer, token: creds.requestToken, url: `${server.url}/oauth/access_token`, oauth: { oauth_verifier: '1234567' } })
    const brief = (a: { status: number; json?: unknown }) => [a.status, errorCode(a as Parameters<typeof errorCode>[0]) ?? null]
    return { bearer: brief(bearer), access: brief(access), exchange: brief(exchange) }
  }

  test('without a body: every token of the app is revoked, signed with the new pair too', async () => {
    const creds = await appWithCredentials('Revoked on rotation')
    const rotated = await server.admin('POST', `/admin/v1/apps/${creds.appId}/rotate-keys`)
    assert.equal(rotated.status, 200, rotated.text)
    assert.equal(rotated.json.previous_key_expires_at, null)
    const fresh = { key: rotated.json.consumer_key as string, secret: rotated.json.consumer_secret as string }
    assert.deepEqual(await outcomes(creds, fresh), { bearer: [401, 89], access: [401, 89], exchange: [401, 89] })
    const audit = await server.admin('GET', `/admin/v1/audit?app_id=${creds.appId}&event=app.keys_rotated`)
    assert.deepEqual(audit.json.data.map((e: { detail: { revoke_tokens: boolean } }) => e.detail.revoke_tokens), [true])
  })

  test('with grace_seconds: the old pair and every token keep working (the twin)', async () => {
    const creds = await appWithCredentials('Kept in grace')
    const rotated = await server.admin('POST', `/admin/v1/apps/${creds.appId}/rotate-keys`, { grace_seconds: 60 })
    assert.equal(rotated.status, 200, rotated.text)
    assert.deepEqual(await outcomes(creds, creds.consumer), { bearer: [200, null], access: [200, null], exchange: [200, null] })
  })

  test('revoke_tokens says otherwise explicitly, either way', async () => {
    const kept = await appWithCredentials('Kept explicitly')
    const rotated = await server.admin('POST', `/admin/v1/apps/${kept.appId}/rotate-keys`, { revoke_tokens: false })
    const fresh = { key: rotated.json.consumer_key as string, secret: rotated.json.consumer_secret as string }
    assert.deepEqual(await outcomes(kept, fresh), { bearer: [200, null], access: [200, null], exchange: [200, null] })
  })
})
