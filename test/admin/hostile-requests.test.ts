import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { BODY_PLANS, CONTENT_TYPES, KNOWN_OPERATIONS, jsonText, serialize } from '../helpers/fuzz/admin-bodies.ts'
import { fixtureOfSuite, nonexistentId, type Fixture } from '../helpers/fuzz/fixture.ts'
import { badEscape, invalidUtf8, oddId, rawBytes } from '../helpers/fuzz/hostile-input.ts'
import { exchange, header, requestBytes, STACK_TRACE, type Answer, type Attempt } from '../helpers/fuzz/raw-exchange.ts'
import { ADMIN_RUNS, failedSignIns, runHostile } from '../helpers/fuzz/run.ts'

/**
 * Issue 29: generated hostile requests against the admin API (every operation of its OpenAPI
 * document), over real sockets to a running production-mode server, on whichever backend this run
 * has (SQLite, or PostgreSQL + Redis). Its twin for the browser pages is
 * test/pages/console/hostile-requests.test.ts; the fixture, the raw HTTP and the building blocks of
 * hostile input are theirs together, in test/helpers/fuzz/.
 *
 * Most requests carry a live admin token, so their input reaches the validators; the rest carry
 * none, a forged or a revoked one. Every write is broken by construction (a field of the wrong type,
 * out of bounds, unknown, a control character, an id that is no record's...), and on top of that
 * comes the transport's mischief: NUL and control characters, invalid UTF-8 as raw bytes and as
 * percent-escapes, huge strings and bodies, deep JSON, duplicate JSON keys, wrong types and content
 * types, odd paths and ids, raw bytes that are not HTTP.
 *
 * Asserted: never a 5xx; every error an RFC 9457 problem document; no stack trace in any body; every
 * write refused; and, around each batch of requests, no row written (test/helpers/fuzz/run.ts).
 */

const PROBLEM_KEYS = new Set(['type', 'title', 'status', 'detail', 'errors'])

function problemMistakes(answer: Answer): string[] {
  const mistakes: string[] = []
  if (header(answer, 'content-type') !== 'application/problem+json; charset=utf-8') mistakes.push(`content-type ${header(answer, 'content-type')}`)
  let doc: Record<string, unknown>
  try {
    doc = JSON.parse(answer.body) as Record<string, unknown>
  } catch {
    return [...mistakes, 'body is not JSON']
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return [...mistakes, 'body is not an object']
  for (const key of Object.keys(doc)) if (!PROBLEM_KEYS.has(key)) mistakes.push(`unknown key ${key}`)
  if (typeof doc.type !== 'string' || !/^urn:latchkey:problem:[a-z-]+$/.test(doc.type)) mistakes.push('type')
  if (typeof doc.title !== 'string' || doc.title === '') mistakes.push('title')
  if (doc.status !== answer.status) mistakes.push(`status ${String(doc.status)}`)
  if (typeof doc.detail !== 'string') mistakes.push('detail')
  if (doc.errors !== undefined) {
    const errors = doc.errors as Array<Record<string, unknown>>
    if (!Array.isArray(errors) || errors.length === 0) mistakes.push('errors')
    else for (const e of errors) if (!['body', 'query', 'path'].includes(e.in as string) || typeof e.field !== 'string' || typeof e.detail !== 'string') mistakes.push('errors item')
  }
  return mistakes
}

function checkAdmin(attempt: Attempt, answer: Answer): string[] {
  const mistakes: string[] = []
  if (answer.status >= 500) mistakes.push(`${answer.status}`)
  if (attempt.mustRefuse && answer.status < 400) mistakes.push(`a broken write was accepted (${answer.status})`)
  if (STACK_TRACE.test(answer.body)) mistakes.push('stack trace in the body')
  if (answer.status >= 400 && attempt.method !== 'HEAD') mistakes.push(...problemMistakes(answer))
  return mistakes
}

interface Ids {
  user: fc.Arbitrary<{ value: string; exists: boolean }>
  app: fc.Arbitrary<{ value: string; exists: boolean }>
}

function ids(f: Fixture): Ids {
  const existing = (values: string[]) => fc.constantFrom(...values).map((value) => ({ value, exists: true }))
  const absent = fc.oneof(nonexistentId(f), oddId).map((value) => ({ value, exists: false }))
  return { user: fc.oneof(existing(f.userIds), absent), app: fc.oneof(existing(f.appIds), absent) }
}

const listQueryParts = (f: Fixture, op: string) => {
  const filters: Record<string, fc.Arbitrary<string>> = {
    listUsers: fc.oneof(fc.constantFrom(...f.screenNames), fc.string({ maxLength: 20 }).map(encodeURIComponent), badEscape).map((v) => `screen_name=${v}`),
    listApps: fc.oneof(fc.constantFrom(...f.userIds), oddId).map((v) => `owner=${v}`),
    listAuditEvents: fc.oneof(
      fc.tuple(fc.constantFrom('app_id', 'user_id'), fc.oneof(fc.constantFrom(...f.appIds, ...f.userIds), oddId)).map(([k, v]) => `${k}=${v}`),
      fc.constantFrom('user.created', 'app.created', 'sign_in.failed', 'everything', '', 'USER.CREATED').map((v) => `event=${encodeURIComponent(v)}`),
      fc
        .tuple(
          fc.constantFrom('since', 'until'),
          fc.constantFrom(
            '2024-01-01T00:00:00Z',
            '2016-12-31T23:59:60Z',
            '1970-01-01T00:00:00Z',
            '0000-01-01T00:00:00Z',
            '9999-12-31T23:59:59.999999999Z',
            '2024-01-01t00:00:00z',
            '2024-01-01T00:00:00+23:59',
            '2024-02-30T00:00:00Z',
            '+275760-09-13T00:00:00Z',
            'yesterday',
            '2024-01-01',
            '1700000000000',
          ),
        )
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`),
    ),
  }
  return fc.oneof(
    filters[op] ?? fc.constant(''),
    fc.constantFrom('1', '200', '201', '0', '-1', 'ten', '1e2', '1.5', '99999999999999999999', '', '%00', '0x10').map((v) => `limit=${v}`),
    fc
      .oneof(
        fc.constantFrom('MTIz', 'bm9wZQ', 'MTcwMDAwMDAwMDAwMC4x', '%25%25', 'A'.repeat(201), '', '_-_-'),
        fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(Buffer.from(s).toString('base64url'))),
        badEscape,
      )
      .map((v) => `cursor=${v}`),
    fc.constantFrom('page=2', 'limit=1&limit=2', 'cursor=a&cursor=b', 'x', '&&&', '=', 'limit', `screen_name=${'a'.repeat(3000)}`),
    badEscape.map((v) => `limit=${v}`),
  )
}

function adminAttempts(f: Fixture): fc.Arbitrary<Attempt> {
  const idArbs = ids(f)
  const operations = f.operations.filter((op) => op.id !== undefined)
  const operation = fc.constantFrom(...operations)
  const token = fc.oneof(
    { weight: 12, arbitrary: fc.constant({ how: '', value: `Bearer ${f.adminToken}`, live: true }) },
    { weight: 1, arbitrary: fc.constant({ how: 'lower-case scheme', value: `bearer ${f.adminToken}`, live: true }) },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(
          '',
          'Bearer',
          'Bearer ',
          `Bearer ${f.revokedToken}`,
          `Bearer ${f.adminToken.slice(0, -1)}`,
          `Bearer ${f.adminToken}x`,
          `Bearer ${f.adminToken} extra`,
          `Basic ${Buffer.from(`x:${f.adminToken}`).toString('base64')}`,
          `Bearer lkadm_${'A'.repeat(43)}`,
          `Bearer ${'x'.repeat(8000)}`,
          `Bearer ${f.adminToken.toUpperCase()}`,
          'OAuth oauth_token="x"',
        )
        .map((value) => ({ how: 'a bad admin token', value, live: false })),
    },
  )
  // No webhook exists in the fixture: a webhook id is any id, no record's (404) or odd (400).
  // No login challenge or identity link exists either: a challenge or subject is any text, no record's (404) or odd (400).
  const pathFor = (template: string, user: string, app: string) =>
    template.replace('{user_id}', user).replace('{app_id}', app).replace('{webhook_id}', app).replace('{challenge}', app).replace('{provider}', 'login').replace('{subject}', app)

  const request = fc
    .record({ op: operation, token, user: idArbs.user, app: idArbs.app, extra: fc.nat({ max: 99 }) })
    .chain(({ op, token, user, app, extra }) => {
      const plan = BODY_PLANS[op.id]
      const hasBody = plan !== undefined
      const isWrite = op.method !== 'GET'
      // A live token never deletes an app or issues an owner token: those get ids that are no record's.
      // (Revoking an authorization or a bearer token may meet real ids: no one holds either, so 404.)
      if (token.live && (op.id === 'deleteApp' || op.id === 'issueOwnerToken')) {
        user = { value: '99999999999999999999', exists: false }
        app = { value: '99999999999999999999', exists: false }
      }
      const usesUser = op.path.includes('{user_id}')
      const usesApp = op.path.includes('{app_id}')
      const targetsExisting = (usesUser && user.exists) || (usesApp && app.exists)
      const path = pathFor(op.path, user.value, app.value)
      const base = { aim: op.id, method: op.method, authenticated: token.live, mustRefuse: isWrite }
      const auth: Array<[string, string]> = token.value === '' ? [] : [['Authorization', token.value]]
      const query = op.method === 'GET' && op.id.startsWith('list') ? listQueryParts(f, op.id) : fc.constant('')
      const body: fc.Arbitrary<{ how: string; body?: Buffer; contentType?: string }> = hasBody
        ? fc.oneof(
            { weight: 6, arbitrary: jsonText(f, plan).map((b) => ({ ...b, contentType: 'application/json' })) },
            {
              weight: 1,
              arbitrary: fc.tuple(jsonText(f, plan), fc.constantFrom(...CONTENT_TYPES)).map(([b, type]) => ({ how: `${b.how}, content-type ${JSON.stringify(type)}`, body: b.body, contentType: type })),
            },
            // A valid body with a content type that is not JSON: 415 (or 400 for text/plain, a string is not an object).
            {
              weight: 1,
              arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/jsonx').map((type) => ({
                how: `a valid body as ${type}`,
                body: Buffer.from(serialize(plan.valid(f))),
                contentType: type,
              })),
            },
          )
        : fc.oneof(
            { weight: 6, arbitrary: fc.constant({ how: 'no body' }) },
            { weight: 1, arbitrary: fc.constantFrom('{}', '{"x":1}', 'null', '', 'garbage').map((text) => ({ how: `unexpected body ${text}`, body: Buffer.from(text), contentType: 'application/json' })) },
          )
      return fc.tuple(query, body).map(([q, b]): Attempt => {
        // A write whose body might be accepted stays away from existing records.
        const headers: Array<[string, string]> = [...auth]
        if (b.contentType !== undefined && b.contentType !== '') headers.push(['Content-Type', b.contentType])
        const brokenPath = !targetsExisting && (usesUser || usesApp)
        return {
          ...base,
          how: [token.how, b.how, q && `query ${q.slice(0, 60)}`, brokenPath ? `id ${(usesUser ? user.value : app.value).slice(0, 40)}` : ''].filter(Boolean).join('; '),
          target: `${path}${q ? `?${q}` : ''}`,
          headers: extra < 3 ? [...headers, ['Authorization', `Bearer ${f.revokedToken}`]] : headers,
          ...(b.body ? { body: b.body } : {}),
        }
      })
    })

  const oddRequests: fc.Arbitrary<Attempt> = fc.oneof(
    // Methods the paths do not have, and paths that are not the API's.
    fc.tuple(fc.constantFrom('PUT', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'get', 'DELETE', 'PATCH', 'X'.repeat(100)), fc.constantFrom('/admin/v1/users', '/admin/v1/apps', '/admin/v1/audit', '/admin/v1/openapi.json', '/admin/v1', '/admin', '/', '/ADMIN/V1/USERS', '/admin/v1/users/', '/admin/v1//users', '/admin/v1/users/..', '/admin/v1/./users', '/admin/v2/users', '/admin/v1/users?', '/oauth/request_token', '/console', '/metrics', '*'))
      .map(([method, target]): Attempt => ({ aim: 'odd path', how: `${method} ${target}`, method, target, headers: [['Authorization', `Bearer ${f.adminToken}`]], authenticated: true, mustRefuse: !['GET', 'HEAD', 'OPTIONS', 'get', 'TRACE', 'PROPFIND'].includes(method) && target !== '*' })),
    fc.tuple(fc.oneof(badEscape, fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent)), fc.constantFrom('/admin/v1/users/', '/admin/v1/apps/', '/admin/v1/', '/admin/v1/apps/1/')).map(([tail, prefix]): Attempt => ({
      aim: 'odd path',
      how: `GET ${prefix}${tail}`,
      method: 'GET',
      target: `${prefix}${tail}`,
      headers: [['Authorization', `Bearer ${f.adminToken}`]],
      authenticated: true,
      mustRefuse: false,
    })),
    // Raw bytes in the request target, headers with control characters, duplicate headers, a body on a GET.
    fc.tuple(invalidUtf8, fc.constantFrom('/admin/v1/users/', '/admin/v1/apps?owner=', '/admin/v1/audit?event=')).map(([bytes, prefix]): Attempt => ({
      aim: 'raw',
      how: 'invalid UTF-8 bytes in the path',
      method: 'GET',
      target: `${prefix}${bytes.toString('latin1')}`,
      headers: [['Authorization', `Bearer ${f.adminToken}`]],
      authenticated: true,
      mustRefuse: false,
    })),
    fc.tuple(fc.constantFrom('\u0000', '\u0001', '\u007f', '\u00ff', '\u001b'), fc.constantFrom('Authorization', 'Content-Type', 'X-Anything')).map(([c, name]): Attempt => ({
      aim: 'raw',
      how: `${JSON.stringify(c)} in ${name}`,
      method: 'POST',
      target: '/admin/v1/users',
      headers: name === 'Authorization' ? [[name, `Bearer ${f.adminToken}${c}`]] : [['Authorization', `Bearer ${f.adminToken}`], [name, `application/json${c}`]],
      body: Buffer.from('{"screen_name":1}'),
      authenticated: name !== 'Authorization',
      mustRefuse: true,
    })),
    fc.constantFrom<Array<[string, string]>>(
      [['Content-Type', 'application/json'], ['Content-Type', 'text/plain']],
      [['Content-Length', '5'], ['Content-Length', '6']],
      [['Content-Length', '-1']],
      [['Content-Length', 'abc']],
      [['Transfer-Encoding', 'chunked'], ['Content-Length', '17']],
      [['Transfer-Encoding', 'gzip']],
      [['Content-Encoding', 'gzip'], ['Content-Type', 'application/json']],
      [['Host', 'a'], ['Host', 'b']],
      [['X-Big', 'a'.repeat(20_000)]],
    ).map((extra): Attempt => ({
      aim: 'raw',
      how: `headers ${extra.map(([n, v]) => `${n}: ${v.slice(0, 20)}`).join(', ')}`,
      method: 'POST',
      target: '/admin/v1/users',
      headers: [['Authorization', `Bearer ${f.adminToken}`], ...extra],
      body: Buffer.from('{"screen_name":1}'),
      authenticated: true,
      mustRefuse: true,
    })),
    fc.constantFrom('{"x":1}', '', 'garbage').map((text): Attempt => ({
      aim: 'raw',
      how: `GET with a body ${text}`,
      method: 'GET',
      target: '/admin/v1/users',
      headers: [['Authorization', `Bearer ${f.adminToken}`], ['Content-Type', 'application/json']],
      body: Buffer.from(text),
      authenticated: true,
      mustRefuse: false,
    })),
    rawBytes(Buffer.from('GET /admin/v1/users HTTP/9.9\r\n\r\n'), Buffer.from('GET\r\n\r\n'), Buffer.from('GET /admin/v1/users HTTP/1.1\r\nHost: x\r\nAuthorization Bearer\r\n\r\n')),
  )
  return fc.oneof({ weight: 9, arbitrary: request }, { weight: 1, arbitrary: oddRequests })
}

describe('hostile admin API requests (fuzz)', () => {
  const fixture = fixtureOfSuite()

  test('the admin API document lists only operations the fuzzer knows', () => {
    const f = fixture()
    const unknown = f.operations.map((op) => op.id).filter((id) => !KNOWN_OPERATIONS.has(id))
    assert.deepEqual(unknown, [], 'add these operations to the fuzzer')
    assert.ok(f.operations.length >= KNOWN_OPERATIONS.size)
  })

  test(`${ADMIN_RUNS} hostile admin API requests: no 5xx, problem documents, no stack trace, every write refused, nothing written`, async () => {
    const f = fixture()
    const before = await failedSignIns(f.server.dbPath)
    const tally = await runHostile(f, 'admin API', f.adminPort, adminAttempts(f), ADMIN_RUNS, checkAdmin)
    assert.equal(await failedSignIns(f.server.dbPath), before, 'the admin API audits no sign-in')
    // With enough requests, every operation was reached (by a live token, mostly).
    if (ADMIN_RUNS >= 40 * KNOWN_OPERATIONS.size) {
      const missed = [...KNOWN_OPERATIONS].filter((id) => !tally.byAim.has(id))
      assert.deepEqual(missed, [], 'operations never reached')
    }
    assert.ok(tally.sent === 0 || tally.authenticated > tally.sent / 2, 'most requests reach the validators')
    const ready = await exchange(f.publicPort, requestBytes({ aim: 'ready', how: '', method: 'GET', target: '/readyz', headers: [], authenticated: false, mustRefuse: false }, f.publicPort))
    assert.equal(ready.status, 200)
  })
})
