// What the admin listener does before any route: its log lines, its body parser, its validators.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pino from 'pino'
import { buildAdminApp } from '../../src/admin/app.ts'
import { createAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { makeApp } from '../helpers/fixtures.ts'

describe('the admin listener', () => {
  let server: AdminTestServer
  before(async () => {
    server = await injectedAdminTestServer()
  })
  after(() => server.close())

  test('its log lines say they are the admin listener', async () => {
    const lines: string[] = []
    const adminApp = await buildAdminApp({ domain: server.domain, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) })
    const { token } = await createAdminToken(server.domain, 'log test')
    const answer = await adminApp.inject({ method: 'GET', url: '/admin/v1/users', headers: { authorization: `Bearer ${token}` } })
    await adminApp.close()
    assert.equal(answer.statusCode, 200)
    const access = lines.map((line) => JSON.parse(line) as { msg: string; listener?: string }).filter((line) => line.msg === 'admin request')
    assert.equal(access.length, 1, lines.join('\n'))
    assert.equal(access[0]!.listener, 'admin')
  })

  test('without metrics it has no /metrics: 404, as any path it does not have', async () => {
    const answer = await server.admin('GET', '/metrics')
    assert.deepEqual([answer.status, answer.json.type], [404, 'urn:latchkey:problem:not-found'])
  })

  test('a request without a body is bodiless whatever its Content-Type says; an empty JSON document is not', async () => {
    const app = await makeApp(server.domain)
    const deleted = await server.admin('DELETE', `/admin/v1/apps/${app.id}`, undefined, { rawBody: '', contentType: 'application/json' })
    assert.equal(deleted.status, 204, deleted.text)
    assert.equal((await server.admin('GET', `/admin/v1/apps/${app.id}`)).status, 404)
    const broken = await server.admin('POST', '/admin/v1/users', undefined, { rawBody: '{', contentType: 'application/json' })
    assert.equal(broken.status, 400)
    assert.equal(broken.headers.get('content-type'), 'application/problem+json; charset=utf-8')
  })

  test('a body that would poison a prototype is refused as such, before any field is read', async () => {
    for (const rawBody of ['{"__proto__":{"admin":true},"screen_name":"poisoner","password":"long enough"}', '{"constructor":{"prototype":{"admin":true}},"screen_name":"poisoner","password":"long enough"}']) {
      const answer = await server.admin('POST', '/admin/v1/users', undefined, { rawBody })
      assert.equal(answer.status, 400, answer.text)
      // Refused by the parser as no valid JSON (Fastify's prototype-poisoning check), not by a field.
      assert.match(answer.json.detail, /not valid JSON/, answer.text)
      assert.equal(answer.json.errors, undefined, answer.text)
    }
    // Its accepted twin: the same person without the poison.
    assert.equal((await server.admin('POST', '/admin/v1/users', { screen_name: 'poisoner', password: 'long enough' })).status, 201)
  })

  test('every refused field of a body is named, not only the first', async () => {
    const answer = await server.admin('POST', '/admin/v1/users', { screen_name: 'no spaces allowed', password: 1, name: 7 })
    assert.equal(answer.status, 400, answer.text)
    const fields = (answer.json.errors as Array<{ field: string }>).map((error) => error.field).sort()
    assert.deepEqual(fields, ['name', 'password', 'screen_name'])
  })
})
