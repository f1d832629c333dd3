// What the admin API fuzz (test/admin/hostile-requests.test.ts) found, one focused test each.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { sendRaw } from '../helpers/raw-http.ts'
import { countRows } from '../helpers/test-app.ts'

function assertProblem(answer: { status: number; contentType: string; body: string }, status: number): void {
  assert.equal(answer.status, status, answer.body)
  assert.equal(answer.contentType, 'application/problem+json; charset=utf-8')
  const problem = JSON.parse(answer.body) as Record<string, unknown>
  assert.equal(problem.status, status)
  assert.match(String(problem.type), /^urn:latchkey:problem:/)
  for (const key of ['title', 'detail']) assert.equal(typeof problem[key], 'string', key)
}

describe('admin API: what the fuzz found', () => {
  let server: AdminTestServer
  let appId: string
  before(async () => {
    server = await startAdminTestServer()
    const person = await server.admin('POST', '/admin/v1/users', { screen_name: 'fuzzfound', password: 'long enough' })
    const made = await server.admin('POST', '/admin/v1/apps', { name: 'Found', owner: person.json.user_id, callbacks: [], type: 'desktop', sign_in: false, access_level: 'read' })
    assert.equal(made.status, 201, made.text)
    appId = made.json.app_id
  })
  after(() => server.close())

  test('rotate-keys with the JSON body `null` is a 400, not a rotation (only no body at all means the defaults)', async () => {
    const keyBefore = (await server.admin('GET', `/admin/v1/apps/${appId}`)).json.consumer_key
    const auditBefore = await countRows(server.dbPath, 'audit_events')
    const refused = await server.admin('POST', `/admin/v1/apps/${appId}/rotate-keys`, undefined, { rawBody: 'null' })
    assert.equal(refused.status, 400, refused.text)
    assert.equal(refused.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    assert.equal((await server.admin('GET', `/admin/v1/apps/${appId}`)).json.consumer_key, keyBefore, 'the keys are the same')
    assert.equal(await countRows(server.dbPath, 'audit_events'), auditBefore, 'nothing audited')
    // Its accepted twin: no body at all rotates with the defaults.
    const rotated = await server.admin('POST', `/admin/v1/apps/${appId}/rotate-keys`)
    assert.equal(rotated.status, 200, rotated.text)
    assert.notEqual(rotated.json.consumer_key, keyBefore)
  })

  test('audit since or until a leap second (23:59:60, valid RFC 3339) is read as the next second, never a NaN to the store (a 500 on PostgreSQL)', async () => {
    const all = await server.admin('GET', '/admin/v1/audit')
    assert.ok(all.json.data.length > 0)
    const since = await server.admin('GET', '/admin/v1/audit?since=2016-12-31T23:59:60Z')
    assert.equal(since.status, 200, since.text)
    assert.deepEqual(since.json.data, all.json.data, 'every event is after 2017')
    const until = await server.admin('GET', '/admin/v1/audit?until=2016-12-31T23:59:60Z')
    assert.equal(until.status, 200, until.text)
    assert.deepEqual(until.json.data, [])
    const offset = await server.admin('GET', `/admin/v1/audit?since=${encodeURIComponent('2016-12-31T18:59:60-05:00')}`)
    assert.deepEqual(offset.json.data, all.json.data)
  })

  test("a path whose escapes are not UTF-8, or a path parameter past the router's bound, is a problem document (not Fastify's own JSON echoing the path)", async () => {
    const auth = `Authorization: Bearer ${server.token}\r\n`
    assertProblem(await sendRaw(server.adminUrl, `GET /admin/v1/users/%FF HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`), 400)
    assertProblem(await sendRaw(server.adminUrl, `GET /admin/v1/users/${'9'.repeat(200)} HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`), 414)
    // The twins: the same paths, well formed, reach the route (404: no such user).
    assertProblem(await sendRaw(server.adminUrl, `GET /admin/v1/users/99 HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`), 404)
  })

  test("what Node's parser refuses on the admin listener is a problem document too (a control character in a header, headers too large, garbage)", async () => {
    assertProblem(await sendRaw(server.adminUrl, `GET /admin/v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\u0001\r\n\r\n`), 400)
    assertProblem(await sendRaw(server.adminUrl, `GET /admin/v1/users HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431)
    assertProblem(await sendRaw(server.adminUrl, 'NOT HTTP AT ALL\r\n\r\n'), 400)
    const twin = await sendRaw(server.adminUrl, `GET /admin/v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nConnection: close\r\n\r\n`)
    assert.equal(twin.status, 200, twin.body)
  })
})
