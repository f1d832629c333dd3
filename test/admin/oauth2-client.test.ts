// Issue 30: an app's OAuth 2.0 client over the admin API (oauth2_enabled, client_type; client_id in
// the answers about one app, client_secret only where it is made).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'

describe("an app's OAuth 2.0 client over the admin API", () => {
  let server: AdminTestServer
  let owner: string
  before(async () => {
    server = await injectedAdminTestServer()
    const answer = await server.admin('POST', '/admin/v1/users', { screen_name: 'oauth2_owner', password: 'correct horse', name: 'Owner' })
    owner = (answer.json as { user_id: string }).user_id
  })
  after(() => server.close())

  const create = (name: string, extra: Record<string, unknown> = {}) =>
    server.admin('POST', '/admin/v1/apps', { name, owner, callbacks: ['https://client.example/cb'], type: 'web', sign_in: false, access_level: 'write', ...extra })

  test('created with oauth2_enabled: a client id and a secret shown once; the app read back has the id, never the secret', async () => {
    const created = await create('Confidential one', { oauth2_enabled: true })
    assert.equal(created.status, 201, created.text)
    const body = created.json as Record<string, unknown>
    assert.equal(body.oauth2_enabled, true)
    assert.equal(body.client_type, 'confidential')
    assert.match(String(body.client_id), /^[A-Za-z0-9]{34}$/)
    assert.notEqual(body.client_id, body.consumer_key)
    assert.match(String(body.client_secret), /^[A-Za-z0-9]{50}$/)
    const read = (await server.admin('GET', `/admin/v1/apps/${String(body.app_id)}`)).json as Record<string, unknown>
    assert.deepEqual([read.oauth2_enabled, read.client_type, read.client_id, 'client_secret' in read], [true, 'confidential', body.client_id, false])
  })

  test('switched to public (no secret) and off; a client_type that is not one is refused and changes nothing', async () => {
    const created = (await create('Switching one', { oauth2_enabled: true, client_type: 'confidential' })).json as Record<string, unknown>
    const path = `/admin/v1/apps/${String(created.app_id)}`
    const bad = await server.admin('PATCH', path, { client_type: 'secretive' })
    assert.equal(bad.status, 400)
    assert.equal(((await server.admin('GET', path)).json as Record<string, unknown>).client_type, 'confidential')
    const toPublic = await server.admin('PATCH', path, { client_type: 'public' })
    assert.equal(toPublic.status, 200, toPublic.text)
    const publicBody = toPublic.json as Record<string, unknown>
    assert.deepEqual([publicBody.client_type, publicBody.client_id, 'client_secret' in publicBody], ['public', created.client_id, false])
    const off = (await server.admin('PATCH', path, { oauth2_enabled: false })).json as Record<string, unknown>
    assert.deepEqual([off.oauth2_enabled, off.client_type, off.client_id], [false, null, null])
    const plain = (await create('Plain one')).json as Record<string, unknown>
    assert.deepEqual([plain.oauth2_enabled, plain.client_id], [false, null])
  })

  test('oauth2_enabled: true keeps the type of a client the app has; only an app without one gets a confidential client', async () => {
    const created = (await create('Public already', { oauth2_enabled: true, client_type: 'public' })).json as Record<string, unknown>
    const path = `/admin/v1/apps/${String(created.app_id)}`
    const again = (await server.admin('PATCH', path, { oauth2_enabled: true })).json as Record<string, unknown>
    assert.deepEqual([again.client_type, again.client_id, 'client_secret' in again], ['public', created.client_id, false])
    const plain = (await create('Without one')).json as Record<string, unknown>
    const enabled = (await server.admin('PATCH', `/admin/v1/apps/${String(plain.app_id)}`, { oauth2_enabled: true })).json as Record<string, unknown>
    assert.equal(enabled.client_type, 'confidential')
    assert.equal(typeof enabled.client_secret, 'string', 'made now: shown this once')
  })

  test('rotate-client-secret on an app without a confidential client: 400 saying how to get one', async () => {
    const plain = (await create('No client')).json as Record<string, unknown>
    const refused = await server.admin('POST', `/admin/v1/apps/${String(plain.app_id)}/rotate-client-secret`)
    assert.equal(refused.status, 400, refused.text)
    assert.equal(refused.json.detail, `app ${String(plain.app_id)} has no confidential OAuth 2.0 client (PATCH it with "client_type": "confidential")`)
  })

  test('the apps list shows each app\'s client as the answers about one app do, never its secret', async () => {
    const confidential = (await create('Listed confidential', { oauth2_enabled: true })).json as Record<string, unknown>
    const plain = (await create('Listed plain')).json as Record<string, unknown>
    const listed = (await server.admin('GET', `/admin/v1/apps?owner=${owner}&limit=100`)).json as { data: Array<Record<string, unknown>> }
    const byId = new Map(listed.data.map((a) => [a.app_id, a]))
    const one = byId.get(confidential.app_id)!
    assert.deepEqual([one.oauth2_enabled, one.client_type, one.client_id, 'client_secret' in one], [true, 'confidential', confidential.client_id, false])
    const other = byId.get(plain.app_id)!
    assert.deepEqual([other.oauth2_enabled, other.client_type, other.client_id], [false, null, null])
  })

  test("a person's authorizations list their OAuth 2.0 grants with the scopes, beside OAuth 1.0a; revoking ends both", async () => {
    const person = (await server.admin('POST', '/admin/v1/users', { screen_name: 'granting_one', password: 'correct horse' })).json as { user_id: string }
    const oauth2Only = (await create('Granted by OAuth 2', { oauth2_enabled: true, client_type: 'public' })).json as Record<string, unknown>
    const nowMs = Date.now()
    for (const scopes of [['tweet.read', 'users.read'], ['users.read', 'offline.access']]) {
      const grant = { id: server.domain.newId(), appId: String(oauth2Only.app_id), userId: person.user_id, scopes, createdAtMs: nowMs, revokedAtMs: null }
      await server.domain.stores.oauth2Grants.create(grant, [{ token: `access-${grant.id}`, record: { kind: 'access', grantId: grant.id, createdAtMs: nowMs, expiresAtMs: nowMs + 7_200_000, spentAtMs: null } }], `code-${grant.id}`)
    }
    const path = `/admin/v1/users/${person.user_id}/authorizations`
    const listed = await server.admin('GET', path)
    assert.equal(listed.status, 200, listed.text)
    const data = (listed.json as { data: Array<Record<string, unknown>> }).data
    assert.deepEqual(
      data.map(({ app_id, scopes, access_level }) => ({ app_id, scopes, access_level })),
      [{ app_id: oauth2Only.app_id, scopes: ['users.read', 'offline.access', 'tweet.read'], access_level: 'read-write' }],
    )
    assert.equal((await server.admin('DELETE', `${path}/${String(oauth2Only.app_id)}`)).status, 204)
    assert.deepEqual((await server.admin('GET', path)).json, { data: [] })
  })

  test('rotate-client-secret: a new secret; the old one stops at once, or works on through grace_seconds', async () => {
    const created = (await create('Rotating one', { oauth2_enabled: true })).json as Record<string, unknown>
    const path = `/admin/v1/apps/${String(created.app_id)}/rotate-client-secret`
    const graceful = await server.admin('POST', path, { grace_seconds: 3600 })
    assert.equal(graceful.status, 200, graceful.text)
    const rotated = graceful.json as Record<string, unknown>
    assert.deepEqual(Object.keys(rotated).sort(), ['client_id', 'client_secret', 'previous_secret_expires_at'])
    assert.equal(rotated.client_id, created.client_id)
    assert.notEqual(rotated.client_secret, created.client_secret)
    const expiresAt = Date.parse(String(rotated.previous_secret_expires_at))
    assert.ok(Math.abs(expiresAt - (Date.now() + 3_600_000)) < 60_000, String(rotated.previous_secret_expires_at))
    const atOnce = await server.admin('POST', path)
    assert.equal(atOnce.status, 200, atOnce.text)
    assert.equal((atOnce.json as Record<string, unknown>).previous_secret_expires_at, null)
    const audit = await server.domain.stores.audit.list({ appId: String(created.app_id), limit: 2 })
    assert.deepEqual(
      audit.map(({ detail }) => ({ ...detail, actor: String(detail?.actor).split(':')[0] })),
      [
        { secret_regenerated: true, grants_ended: true, actor: 'admin_token' },
        { secret_regenerated: true, grants_ended: false, grace_seconds: 3600, actor: 'admin_token' },
      ],
    )
  })

  test('rotate-client-secret refuses a grace period out of bounds, an app without a confidential client and an unknown app, changing nothing', async () => {
    const created = (await create('Refused rotation', { oauth2_enabled: true })).json as Record<string, unknown>
    const path = `/admin/v1/apps/${String(created.app_id)}/rotate-client-secret`
    for (const body of [{ grace_seconds: 0 }, { grace_seconds: 604_801 }, { grace_seconds: '60' }, { grants: 'keep' }]) {
      const refused = await server.admin('POST', path, body)
      assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`)
    }
    const publicApp = (await create('Public, no secret', { oauth2_enabled: true, client_type: 'public' })).json as Record<string, unknown>
    const noSecret = await server.admin('POST', `/admin/v1/apps/${String(publicApp.app_id)}/rotate-client-secret`)
    assert.equal(noSecret.status, 400, noSecret.text)
    assert.equal((await server.admin('POST', '/admin/v1/apps/999999999/rotate-client-secret')).status, 404)
    assert.deepEqual((await server.domain.stores.audit.list({ appId: String(created.app_id), limit: 10 })).filter((row) => row.detail?.secret_regenerated), [])
    assert.equal((await server.admin('POST', path, { grace_seconds: 604_800 })).status, 200, 'the same request within bounds')
  })
})
