// Issue 33, rule 2: the admin listener's answers hold consumer secrets and owner tokens; no cache
// between an operator's tool and Latchkey may keep any of them.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'

describe('every answer of the admin listener says Cache-Control: no-store', () => {
  let server: AdminTestServer
  before(async () => {
    server = await injectedAdminTestServer()
  })
  after(() => server.close())

  test('secrets, lists, refusals, unknown routes and malformed paths alike', async () => {
    const user = await server.admin('POST', '/admin/v1/users', { screen_name: 'cachey', password: 'correct horse', name: 'Cachey' })
    const app = await server.admin('POST', '/admin/v1/apps', {
      name: 'Cached nowhere',
      owner: user.json.user_id,
      callbacks: [],
      type: 'desktop',
      sign_in: false,
      access_level: 'read',
    })
    const answers = {
      'a new user (201)': user,
      'a new app with its secret (201)': app,
      'an owner token (201)': await server.admin('POST', `/admin/v1/apps/${app.json.app_id}/owner-token`, {}),
      'rotated keys with the new secret': await server.admin('POST', `/admin/v1/apps/${app.json.app_id}/rotate-keys`, {}),
      'an app': await server.admin('GET', `/admin/v1/apps/${app.json.app_id}`),
      'a list': await server.admin('GET', '/admin/v1/apps?limit=1'),
      'the OpenAPI document': await server.admin('GET', '/admin/v1/openapi.json'),
      'no admin token (401)': await server.admin('GET', '/admin/v1/apps', undefined, { auth: null }),
      'a bad body (400)': await server.admin('POST', '/admin/v1/users', { screen_name: '' }),
      'an unknown app (404)': await server.admin('GET', '/admin/v1/apps/999999999'),
      'an unknown route (404)': await server.admin('GET', '/admin/v1/nothing-here'),
      'a malformed path (400)': await server.admin('GET', '/admin/v1/apps/%E0%A4%A'),
    }
    assert.equal(user.status, 201, user.text)
    assert.equal(app.status, 201, app.text)
    for (const [what, answer] of Object.entries(answers)) {
      assert.ok(answer.status < 500, `${what}: ${answer.status} ${answer.text}`)
      assert.equal(answer.headers.get('cache-control'), 'no-store', `${what} (${answer.status})`)
    }
  })
})
