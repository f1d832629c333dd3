// The admin API's one error shape (src/admin/errors.ts): what each kind of failure becomes, before
// and after routing, and that a 5xx is logged for the operator but shows nothing of its cause.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pino from 'pino'
import { buildAdminApp } from '../../src/admin/app.ts'
import { toProblem } from '../../src/admin/errors.ts'
import { createAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { E } from '../../src/errors/catalogue.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { SealError, StorageUnavailableError } from '../../src/storage/errors.ts'
import { startAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { jsonOf, raw } from '../helpers/raw-http.ts'

describe('admin problem documents', () => {
  let server: AdminTestServer
  before(async () => {
    server = await startAdminTestServer()
  })
  after(() => server.close())

  test('a storage outage is 503 "cannot be reached", an over-capacity 503 its own words, any other failure a bare 500', () => {
    for (const outage of ['cannot reach PostgreSQL: ECONNREFUSED 10.0.0.5:5432', 'cannot reach Redis at redis://10.0.0.6:6379: ECONNREFUSED']) {
      assert.deepEqual(toProblem(new StorageUnavailableError(outage)), {
        type: 'urn:latchkey:problem:unavailable',
        title: 'Service Unavailable',
        status: 503,
        detail: 'The database or Redis cannot be reached; try again shortly.',
      })
    }
    assert.deepEqual(toProblem(new ServiceError(E.overCapacity, { detail: 'pool exhausted' })), {
      type: 'urn:latchkey:problem:unavailable',
      title: 'Service Unavailable',
      status: 503,
      detail: 'Over capacity; try again shortly.',
    })
    for (const failure of [new ServiceError(E.internalError, { detail: 'select failed at row 12' }), new Error('secret at /srv/latchkey'), 'a string']) {
      assert.deepEqual(toProblem(failure), { type: 'urn:latchkey:problem:internal', title: 'Internal Server Error', status: 500, detail: 'Internal error.' })
    }
  })

  test('a stored secret the master key cannot open refuses its credential: 403, the catalogue\'s words, not where it failed', () => {
    assert.deepEqual(toProblem(new SealError('a value sealed under key k1 failed its integrity check')), {
      type: 'urn:latchkey:problem:bad-request',
      title: 'Forbidden',
      status: 403,
      detail: E.credentialUnreadable.message,
    })
  })

  test("a framework refusal with a 4xx status keeps it (the type by status, else bad-request); one without is a 500", () => {
    const refusal = (statusCode: unknown) => Object.assign(new Error('Fastify internals: /admin/v1/x?secret'), { statusCode })
    assert.deepEqual(toProblem(refusal(405)), { type: 'urn:latchkey:problem:method-not-allowed', title: 'Method Not Allowed', status: 405, detail: 'The request is malformed.' })
    assert.deepEqual(toProblem(refusal(400)), { type: 'urn:latchkey:problem:validation', title: 'Bad Request', status: 400, detail: 'The request is malformed.' })
    assert.deepEqual(toProblem(refusal(418)), { type: 'urn:latchkey:problem:bad-request', title: "I'm a Teapot", status: 418, detail: 'The request is malformed.' })
    assert.deepEqual(toProblem(refusal(499)).status, 499)
    for (const statusCode of [399, 500, 503, '404', undefined]) {
      assert.deepEqual(toProblem(refusal(statusCode)), { type: 'urn:latchkey:problem:internal', title: 'Internal Server Error', status: 500, detail: 'Internal error.' }, String(statusCode))
    }
  })

  test('an error thrown by a route is a 500 that shows nothing of it, logged with the request id', async () => {
    const lines: string[] = []
    const adminApp = await buildAdminApp({ domain: server.domain, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) })
    adminApp.get('/admin/v1/failing', async () => {
      throw new Error('the secret cause')
    })
    const { token } = await createAdminToken(server.domain, 'failing route')
    const answer = await adminApp.inject({ method: 'GET', url: '/admin/v1/failing', headers: { authorization: `Bearer ${token}` } })
    const refused = await adminApp.inject({ method: 'GET', url: '/admin/v1/nothing-here', headers: { authorization: `Bearer ${token}` } })
    const invalid = await adminApp.inject({ method: 'GET', url: '/admin/v1/users?limit=ten', headers: { authorization: `Bearer ${token}` } })
    await adminApp.close()
    assert.equal(answer.statusCode, 500)
    assert.deepEqual(answer.json(), { type: 'urn:latchkey:problem:internal', title: 'Internal Server Error', status: 500, detail: 'Internal error.' })
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; reqId?: string; err?: { message: string } })
    const failure = logged.filter((line) => line.msg === 'admin request failed')
    assert.equal(failure.length, 1, 'the 500 is logged once; the 404 and the 400 are not')
    assert.equal(failure[0]!.err?.message, 'the secret cause')
    assert.match(failure[0]!.reqId ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    assert.equal(refused.statusCode, 404)
    assert.equal(invalid.statusCode, 400)
  })

  test('a refusal of the rules that names no field has no `errors` list; one that names a field lists it', async () => {
    const missing = await server.admin('DELETE', '/admin/v1/apps/42')
    assert.deepEqual([missing.status, missing.json.type, missing.json.detail], [404, 'urn:latchkey:problem:not-found', 'no app with id or consumer key 42'])
    assert.equal('errors' in missing.json, false, missing.text)
    assert.equal(missing.headers.get('www-authenticate'), null, 'only a 401 asks for credentials')
    assert.equal((await server.admin('POST', '/admin/v1/users', { screen_name: 'twice', password: 'long enough' })).status, 201)
    const again = await server.admin('POST', '/admin/v1/users', { screen_name: 'twice', password: 'long enough' })
    assert.deepEqual([again.status, again.json.type], [409, 'urn:latchkey:problem:conflict'])
    assert.deepEqual(again.json.errors, [{ in: 'body', field: 'screen_name', detail: 'screen name twice is already taken' }])
  })

  test('no route: 404 "No such admin resource."; a field the schema refuses: "The request has invalid fields."', async () => {
    const missing = await server.admin('GET', '/admin/v1/nothing-here')
    assert.deepEqual([missing.status, missing.json.type, missing.json.detail], [404, 'urn:latchkey:problem:not-found', 'No such admin resource.'])
    const invalid = await server.admin('GET', '/admin/v1/users?limit=ten')
    assert.deepEqual([invalid.status, invalid.json.detail], [400, 'The request has invalid fields.'])
  })

  test("before routing: a path that is not UTF-8 is 400, a path parameter past its bound 414, each a problem document that does not echo the path", async () => {
    const broken = await fetch(`${server.adminUrl}/admin/v1/apps/%E0%A4%A`, { headers: { authorization: `Bearer ${server.token}` } })
    assert.equal(broken.status, 400)
    assert.equal(broken.headers.get('cache-control'), 'no-store')
    assert.deepEqual(await broken.json(), { type: 'urn:latchkey:problem:bad-request', title: 'Bad Request', status: 400, detail: 'The request path is malformed.' })
    const long = await fetch(`${server.adminUrl}/admin/v1/apps/${'9'.repeat(600)}`, { headers: { authorization: `Bearer ${server.token}` } })
    assert.equal(long.status, 414)
    assert.deepEqual(await long.json(), { type: 'urn:latchkey:problem:too-large', title: 'URI Too Long', status: 414, detail: 'The request path is malformed.' })
  })

  test("before Fastify: garbage is a 400 problem document, headers past their bound a 431 one, written on the socket", async () => {
    const garbage = await raw(server.adminUrl, 'HELLO THERE\r\n\r\n', { waitForClose: true })
    assert.match(garbage, /^HTTP\/1.1 400 /)
    assert.match(garbage, /\r\nContent-Type: application\/problem\+json; charset=utf-8\r\n/)
    assert.deepEqual({ ...jsonOf(garbage), detail: undefined }, { type: 'urn:latchkey:problem:bad-request', title: 'Bad Request', status: 400, detail: undefined })
    const big = await raw(server.adminUrl, `GET /admin/v1/users HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, { waitForClose: true })
    assert.match(big, /^HTTP\/1.1 431 /)
    assert.deepEqual({ ...jsonOf(big), detail: undefined }, { type: 'urn:latchkey:problem:too-large', title: 'Request Header Fields Too Large', status: 431, detail: undefined })
  })
})
