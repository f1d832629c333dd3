// Issue 13: malformed admin requests get a 4xx problem document naming what is wrong, and write nothing.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { countRows } from '../helpers/test-app.ts'

interface BadRequest {
  name: string
  method: string
  /** `:user` and `:app` stand for an existing user's and app's ids. */
  path: string
  body?: unknown
  raw?: string
  contentType?: string
  status: number
  /** The field the problem's `errors` must name. */
  field?: string
  /** What `errors` says of that field, where the test pins it. */
  fieldDetail?: string
  /** The problem's type, where it is not the one of its status (TYPE_BY_STATUS). */
  type?: string
  /** The problem's detail, where the case checks it. */
  detail?: string
}

/** The problem type (after `urn:latchkey:problem:`) of each status in the table. */
const TYPE_BY_STATUS: Record<number, string> = { 400: 'validation', 404: 'not-found', 413: 'too-large', 415: 'unsupported-media-type' }

const NOT_A_FIELD = 'is not a field of this request'

const user = (fields: Record<string, unknown>) => ({ screen_name: 'newperson', password: 'long enough', ...fields })
const app = (fields: Record<string, unknown>) => ({
  name: 'New app',
  owner: ':user',
  callbacks: ['https://ok.example/cb'],
  type: 'web',
  sign_in: false,
  access_level: 'read',
  ...fields,
})
const without = (body: Record<string, unknown>, field: string) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== field))

const CASES: BadRequest[] = [
  { name: 'user: screen_name missing', method: 'POST', path: '/admin/v1/users', body: without(user({}), 'screen_name'), status: 400, field: 'screen_name' },
  { name: 'user: password missing', method: 'POST', path: '/admin/v1/users', body: without(user({}), 'password'), status: 400, field: 'password' },
  { name: 'user: screen_name a number', method: 'POST', path: '/admin/v1/users', body: user({ screen_name: 12345 }), status: 400, field: 'screen_name' },
  { name: 'user: screen_name too long', method: 'POST', path: '/admin/v1/users', body: user({ screen_name: 'a'.repeat(16) }), status: 400, field: 'screen_name' },
  { name: 'user: screen_name with a space', method: 'POST', path: '/admin/v1/users', body: user({ screen_name: 'two words' }), status: 400, field: 'screen_name' },
  { name: 'user: password too short', method: 'POST', path: '/admin/v1/users', body: user({ password: 'short' }), status: 400, field: 'password', fieldDetail: 'must NOT have fewer than 8 characters' },
  { name: 'user: password oversized', method: 'POST', path: '/admin/v1/users', body: user({ password: 'x'.repeat(1025) }), status: 400, field: 'password' },
  { name: 'user: name empty', method: 'POST', path: '/admin/v1/users', body: user({ name: '' }), status: 400, field: 'name' },
  { name: 'user: name only spaces', method: 'POST', path: '/admin/v1/users', body: user({ name: '   ' }), status: 400, field: 'name' },
  { name: 'user: unknown field', method: 'POST', path: '/admin/v1/users', body: user({ admin: true }), status: 400, field: 'admin', fieldDetail: NOT_A_FIELD },
  { name: 'user: body an array', method: 'POST', path: '/admin/v1/users', body: [user({})], status: 400, field: '(body)' },
  { name: 'user: bad JSON', method: 'POST', path: '/admin/v1/users', raw: '{"screen_name": "x",', status: 400, type: 'bad-request' },
  { name: 'user: empty JSON body', method: 'POST', path: '/admin/v1/users', raw: '', status: 400, field: '(body)' },
  { name: 'user: form-encoded body', method: 'POST', path: '/admin/v1/users', raw: 'screen_name=x&password=yyyyyyyy', contentType: 'application/x-www-form-urlencoded', status: 415, detail: 'The body must be JSON (Content-Type: application/json).' },
  { name: 'user: body over 64 KiB', method: 'POST', path: '/admin/v1/users', raw: JSON.stringify(user({ name: 'x'.repeat(70_000) })), status: 413 },
  { name: 'user patch: empty object', method: 'PATCH', path: '/admin/v1/users/:user', body: {}, status: 400 },
  { name: 'user patch: screen_name cannot change', method: 'PATCH', path: '/admin/v1/users/:user', body: { screen_name: 'renamed' }, status: 400, field: 'screen_name', fieldDetail: NOT_A_FIELD },
  { name: 'user patch: name a boolean', method: 'PATCH', path: '/admin/v1/users/:user', body: { name: false }, status: 400, field: 'name' },
  { name: 'user: id not numeric', method: 'GET', path: '/admin/v1/users/abc', status: 400, field: 'user_id' },
  { name: 'app: name missing', method: 'POST', path: '/admin/v1/apps', body: without(app({}), 'name'), status: 400, field: 'name' },
  { name: 'app: owner missing', method: 'POST', path: '/admin/v1/apps', body: without(app({}), 'owner'), status: 400, field: 'owner' },
  { name: 'app: owner unknown', method: 'POST', path: '/admin/v1/apps', body: app({ owner: '42' }), status: 400, field: 'owner' },
  { name: 'app: owner a number', method: 'POST', path: '/admin/v1/apps', body: app({ owner: 42 }), status: 400, field: 'owner' },
  { name: 'app: name too long', method: 'POST', path: '/admin/v1/apps', body: app({ name: 'n'.repeat(65) }), status: 400, field: 'name' },
  { name: 'app: callbacks a string', method: 'POST', path: '/admin/v1/apps', body: app({ callbacks: 'https://ok.example/cb' }), status: 400, field: 'callbacks' },
  { name: 'app: relative callback', method: 'POST', path: '/admin/v1/apps', body: app({ callbacks: ['/cb'] }), status: 400, field: 'callbacks' },
  { name: 'app: callback with a fragment', method: 'POST', path: '/admin/v1/apps', body: app({ callbacks: ['https://ok.example/cb#x'] }), status: 400, field: 'callbacks' },
  { name: 'app: eleven callbacks', method: 'POST', path: '/admin/v1/apps', body: app({ callbacks: Array.from({ length: 11 }, (_, i) => `https://ok.example/${i}`) }), status: 400, field: 'callbacks' },
  { name: 'app: type unknown', method: 'POST', path: '/admin/v1/apps', body: app({ type: 'mobile' }), status: 400, field: 'type' },
  { name: 'app: sign_in a string', method: 'POST', path: '/admin/v1/apps', body: app({ sign_in: 'true' }), status: 400, field: 'sign_in' },
  { name: 'app: access_level unknown', method: 'POST', path: '/admin/v1/apps', body: app({ access_level: 'admin' }), status: 400, field: 'access_level' },
  { name: 'app: website not http', method: 'POST', path: '/admin/v1/apps', body: app({ website: 'javascript:alert(1)' }), status: 400, field: 'website' },
  { name: 'app: description oversized', method: 'POST', path: '/admin/v1/apps', body: app({ description: 'd'.repeat(501) }), status: 400, field: 'description' },
  { name: 'app: no signature method', method: 'POST', path: '/admin/v1/apps', body: app({ signature_methods: [] }), status: 400, field: 'signature_methods' },
  { name: 'app: unknown signature method', method: 'POST', path: '/admin/v1/apps', body: app({ signature_methods: ['RSA-SHA1'] }), status: 400, field: 'signature_methods/0' },
  { name: 'app: unknown field', method: 'POST', path: '/admin/v1/apps', body: app({ consumer_secret: 'mine' }), status: 400, field: 'consumer_secret', fieldDetail: NOT_A_FIELD },
  { name: 'app patch: owner cannot change', method: 'PATCH', path: '/admin/v1/apps/:app', body: { owner: ':user' }, status: 400, field: 'owner', fieldDetail: NOT_A_FIELD },
  { name: 'app patch: suspended a number', method: 'PATCH', path: '/admin/v1/apps/:app', body: { suspended: 1 }, status: 400, field: 'suspended' },
  { name: 'app patch: null name', method: 'PATCH', path: '/admin/v1/apps/:app', body: { name: null }, status: 400, field: 'name' },
  { name: 'list: limit over 200', method: 'GET', path: '/admin/v1/users?limit=201', status: 400, field: 'limit' },
  { name: 'list: limit zero', method: 'GET', path: '/admin/v1/apps?limit=0', status: 400, field: 'limit' },
  { name: 'list: limit not a number', method: 'GET', path: '/admin/v1/apps?limit=ten', status: 400, field: 'limit' },
  { name: 'list: cursor not ours', method: 'GET', path: '/admin/v1/users?cursor=bm9wZQ', status: 400, field: 'cursor' },
  { name: 'list: cursor not base64url', method: 'GET', path: '/admin/v1/apps?cursor=%25%25%25', status: 400, field: 'cursor' },
  { name: 'list: unknown query parameter', method: 'GET', path: '/admin/v1/users?page=2', status: 400, field: 'page', fieldDetail: NOT_A_FIELD },
  { name: 'audit: since not a date', method: 'GET', path: '/admin/v1/audit?since=yesterday', status: 400, field: 'since' },
  { name: 'audit: unknown event', method: 'GET', path: '/admin/v1/audit?event=everything', status: 400, field: 'event' },
  { name: 'audit: a users cursor', method: 'GET', path: '/admin/v1/audit?cursor=MTIz', status: 400, field: 'cursor' },
  // Issue 29 (3): control characters, which PostgreSQL refuses in text, are the field's mistake on every backend.
  { name: 'user: name with U+0000', method: 'POST', path: '/admin/v1/users', body: user({ name: 'Ada\u0000' }), status: 400, field: 'name' },
  { name: 'user: name with ESC', method: 'POST', path: '/admin/v1/users', body: user({ name: 'Ada\u001b[31m' }), status: 400, field: 'name' },
  { name: 'user patch: name with U+0000', method: 'PATCH', path: '/admin/v1/users/:user', body: { name: 'Ada\u0000' }, status: 400, field: 'name' },
  { name: 'app: name with U+0000', method: 'POST', path: '/admin/v1/apps', body: app({ name: 'App\u0000' }), status: 400, field: 'name' },
  { name: 'app: description with U+0000', method: 'POST', path: '/admin/v1/apps', body: app({ description: 'one\u0000two' }), status: 400, field: 'description' },
  { name: 'app: website with U+0000', method: 'POST', path: '/admin/v1/apps', body: app({ website: 'https://ok.example/\u0000' }), status: 400, field: 'website' },
  { name: 'app: callback with U+0000', method: 'POST', path: '/admin/v1/apps', body: app({ callbacks: ['https://ok.example/cb\u0000'] }), status: 400, field: 'callbacks' },
  { name: 'app patch: name with U+0000', method: 'PATCH', path: '/admin/v1/apps/:app', body: { name: 'App\u0000' }, status: 400, field: 'name' },
  { name: 'list: screen_name with U+0000', method: 'GET', path: '/admin/v1/users?screen_name=%00', status: 400, field: 'screen_name' },
  { name: 'a method the path does not have (PUT)', method: 'PUT', path: '/admin/v1/users', body: {}, status: 404 },
]

describe('malformed admin requests', () => {
  let server: AdminTestServer
  let ids: { user: string; app: string }
  before(async () => {
    server = await injectedAdminTestServer()
    const person = await server.admin('POST', '/admin/v1/users', { screen_name: 'existing', password: 'long enough' })
    const made = await server.admin('POST', '/admin/v1/apps', app({ owner: person.json.user_id }))
    assert.equal(made.status, 201, made.text)
    ids = { user: person.json.user_id, app: made.json.app_id }
  })
  after(() => server.close())

  test(`the table holds at least 30 cases (${CASES.length})`, () => assert.ok(CASES.length >= 30))

  for (const bad of CASES) {
    test(`${bad.name}: ${bad.status} problem${bad.field ? ` naming ${bad.field}` : ''}, nothing written`, async () => {
      const tables = ['users', 'apps', 'audit_events', 'access_tokens'] as const
      const before = await Promise.all(tables.map((t) => countRows(server.dbPath, t)))
      const fill = (text: string) => text.replaceAll(':user', ids.user).replaceAll(':app', ids.app)
      const body = bad.body === undefined ? undefined : JSON.parse(fill(JSON.stringify(bad.body)))
      const answer = await server.admin(bad.method, fill(bad.path), body, {
        ...(bad.raw === undefined ? {} : { rawBody: bad.raw }),
        ...(bad.contentType ? { contentType: bad.contentType } : {}),
        ...(bad.raw === '' ? { contentType: 'application/json' } : {}),
      })
      assert.equal(answer.status, bad.status, answer.text)
      assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8')
      assert.equal(answer.json.status, bad.status)
      for (const key of ['type', 'title', 'detail']) assert.equal(typeof answer.json[key], 'string', key)
      assert.equal(answer.json.type, `urn:latchkey:problem:${bad.type ?? TYPE_BY_STATUS[bad.status]}`, answer.text)
      if (bad.detail) assert.equal(answer.json.detail, bad.detail)
      if (bad.field) {
        const named = (answer.json.errors ?? []).find((e: { field: string }) => e.field === bad.field)
        assert.ok(named, `errors name ${bad.field}: ${answer.text}`)
        // Where the field is: the query string, the path, or the body.
        assert.equal(named.in, bad.path.includes('?') ? 'query' : bad.method === 'GET' ? 'path' : 'body', answer.text)
        if (bad.fieldDetail) assert.equal(named.detail, bad.fieldDetail)
      }
      assert.deepEqual(await Promise.all(tables.map((t) => countRows(server.dbPath, t))), before)
    })
  }
})
