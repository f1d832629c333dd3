import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testSeedRoutes } from '../../src/admin/routes/test-kit-seed.ts'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'

// The test mode's seed route (issue 47 item 2), registered here as the test mode registers it, on
// the admin app the service builds; every credential it answers is then used over HTTP.

const FIXED = {
  userId: '4242424242',
  consumerKey: 'RouteSeedConsumerKey01234',
  consumerSecret: 'RouteSeedConsumerSecret012345678901234567890123456',
  accessToken: '4242424242-RouteSeedAccessToken0123456789012',
  accessSecret: 'RouteSeedAccessSecret012345678901234567890123',
}

const SEED = {
  people: [{ screen_name: 'route_alice', user_id: FIXED.userId }],
  apps: [{ name: 'Route app', owner: 'route_alice', consumer_key: FIXED.consumerKey, consumer_secret: FIXED.consumerSecret, oauth2_client_type: 'confidential' }],
  credentials: {
    access_tokens: [{ app: 'Route app', person: 'route_alice', token: FIXED.accessToken, secret: FIXED.accessSecret }],
    bearer_tokens: [{ app: 'Route app' }],
    oauth2_grants: [{ app: 'Route app', person: 'route_alice', scopes: ['users.read'] }],
  },
}

describe('POST /admin/v1/test/seed', () => {
  let server: AdminTestServer
  before(async () => void (server = await injectedAdminTestServer({ adminRoutes: [testSeedRoutes] })))
  after(() => server.close())

  test('a bad seed: 400, a problem naming each bad field by its path, nothing written', async () => {
    const bad = { people: [{ screen_name: 'x y' }], apps: [{ name: 'A', owner: 'x y', callbacks: ['https://ok.example/cb', 'no url'] }], extra: 1 }
    const refused = await server.admin('POST', '/admin/v1/test/seed', bad)
    assert.equal(refused.status, 400)
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.equal(refused.json.type, 'urn:latchkey:problem:validation')
    assert.deepEqual(refused.json.errors.map((e: { field: string }) => e.field).sort(), ['apps[0].callbacks[1]', 'extra', 'people[0].screen_name'])
    assert.match(refused.json.detail, /^apps\[0\]\.callbacks\[1\]: /m)
    assert.doesNotMatch(refused.text, /\s+at /)
    assert.deepEqual((await server.admin('GET', '/admin/v1/users')).json.data, [])
    for (const notASeed of [[], 'seed', null]) assert.equal((await server.admin('POST', '/admin/v1/test/seed', notASeed)).status, 400, JSON.stringify(notASeed))
  })

  test('200 with every value; the fixed credentials sign a request that passes, the generated ones work; again, the same answer', async () => {
    const seeded = await server.admin('POST', '/admin/v1/test/seed', SEED)
    assert.equal(seeded.status, 200, seeded.text)
    const result = seeded.json
    assert.equal(result.apps[0].consumer_key, FIXED.consumerKey)
    const verified = await server.signedFetch({
      consumer: { key: FIXED.consumerKey, secret: FIXED.consumerSecret },
      token: { key: FIXED.accessToken, secret: FIXED.accessSecret },
      method: 'GET',
      url: `${server.url}/1.1/account/verify_credentials.json`,
    })
    assert.equal(verified.status, 200, verified.text)
    assert.equal(verified.json.id_str, FIXED.userId)
    const bearer = result.credentials.bearer_tokens[0].token
    const limits = await server.send({ method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json`, headers: { authorization: `Bearer ${bearer}` } })
    assert.equal(limits.status, 200, limits.text)
    const me = await server.send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization: `Bearer ${result.credentials.oauth2_grants[0].access_token}` } })
    assert.equal(me.status, 200, me.text)
    assert.equal(me.json.data.username, 'route_alice')
    const again = await server.admin('POST', '/admin/v1/test/seed', SEED)
    assert.deepEqual(again.json, result)
  })

  test('without an admin token: 401, as every admin route', async () => {
    assert.equal((await server.admin('POST', '/admin/v1/test/seed', SEED, { auth: null })).status, 401)
  })
})
