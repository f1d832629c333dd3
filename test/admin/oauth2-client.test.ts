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
})
