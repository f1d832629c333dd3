// The headers and bodies of every kind of error answer, as clients and proxies read them, and the
// log lines behind them (src/web/json-errors.ts, src/http/oauth2-errors.ts).
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test, type TestContext } from 'node:test'
import pino from 'pino'
import { composeApp } from '../../src/composition/apps.ts'
import { E, type ErrorDef } from '../../src/errors/catalogue.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { errorBody, toServiceError } from '../../src/web/json-errors.ts'
import { StorageUnavailableError } from '../../src/storage/errors.ts'
import { setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { injectedTestServer, openTestDomain, type TestServer } from '../helpers/test-app.ts'

// Every folder this file's tests make in the OS temp dir goes into one of its own, so that the last
// test can see what they left behind (other runs on the machine make folders in the real one).
const scratch = mkdtempSync(join(tmpdir(), 'latchkey-error-answers-'))
process.env.TMPDIR = scratch
after(() => rmSync(scratch, { recursive: true, force: true }))

const JSON_TYPE = 'application/json; charset=utf-8'
const FORM = 'application/x-www-form-urlencoded'

describe('error answers', () => {
  let server: TestServer
  before(async () => {
    server = await injectedTestServer({ settings: { rateLimits: { '/2/oauth2/token': 2, '/2/users/me': 1 } } })
  })
  after(() => server.close())

  const post = (path: string, body: string, headers: Record<string, string> = {}) => server.send({ method: 'POST', url: `${server.url}${path}`, headers: { 'content-type': FORM, ...headers }, body })

  test('v1.1: a 401 names the OAuth scheme, a 400 or 403 none; each is JSON, never cached, labelled only where the catalogue says', async () => {
    const unauthorized = await server.send({ method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json`, headers: { authorization: 'OAuth oauth_consumer_key="nobody", oauth_token="x", oauth_nonce="n", oauth_timestamp="1", oauth_signature_method="HMAC-SHA1", oauth_version="1.0", oauth_signature="x"' } })
    assert.equal(unauthorized.status, 401)
    assert.equal(unauthorized.headers.get('www-authenticate'), 'OAuth realm="Latchkey"')
    assert.equal(unauthorized.headers.get('content-type'), JSON_TYPE)
    assert.equal(unauthorized.headers.get('cache-control'), 'no-store')
    const malformed = await server.send({ method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json`, headers: { authorization: 'OAuth oauth_consumer_key="' } })
    assert.equal(malformed.status, 400)
    assert.equal(malformed.headers.get('www-authenticate'), null)
    assert.deepEqual(Object.keys(malformed.json.errors[0]), ['code', 'message'], 'no label where the catalogue has none')
    const labelled = await server.send({ method: 'POST', url: `${server.url}/oauth2/token?client_secret=x`, headers: { 'content-type': FORM }, body: 'grant_type=client_credentials' })
    assert.equal(labelled.status, 403)
    assert.equal(labelled.headers.get('www-authenticate'), null)
    assert.deepEqual(labelled.json, { errors: [{ code: 99, message: 'Unable to verify your credentials', label: 'authenticity_token_error' }] })
  })

  test('v1.1: a path whose escapes are not UTF-8 is 400 code 1000 in the JSON body, not the framework body', async () => {
    const answer = await server.send({ method: 'GET', url: `${server.url}/1.1/%E0%A4%A/x` })
    assert.equal(answer.status, 400)
    assert.equal(answer.headers.get('content-type'), JSON_TYPE)
    assert.deepEqual(answer.json, { errors: [{ code: 1000, message: answer.json.errors[0].message }] })
    assert.doesNotMatch(answer.text, /%E0%A4%A/, 'the path is not echoed')
  })

  test('/2/oauth2/*: a 401 names the Basic scheme, a 400 none; a limit is too_many_requests; each JSON and never cached', async () => {
    const app = await makeApp(server.domain)
    const client = await setOAuth2Client(server.domain, { appId: app.id, setting: 'confidential' })
    const basic = `Basic ${Buffer.from(`${client.client!.clientId}:wrong`).toString('base64')}`
    const unauthorized = await post('/2/oauth2/token', 'grant_type=refresh_token&refresh_token=x', { authorization: basic })
    assert.equal(unauthorized.status, 401)
    assert.equal(unauthorized.headers.get('www-authenticate'), 'Basic realm="Latchkey"')
    assert.equal(unauthorized.headers.get('content-type'), JSON_TYPE)
    assert.equal(unauthorized.headers.get('cache-control'), 'no-store')
    const right = `Basic ${Buffer.from(`${client.client!.clientId}:${client.newSecret}`).toString('base64')}`
    const bad = await post('/2/oauth2/token', 'grant_type=password', { authorization: right })
    assert.equal(bad.status, 400)
    assert.equal(bad.headers.get('www-authenticate'), null)
    assert.equal(bad.headers.get('cache-control'), 'no-store')
    const limited = await post('/2/oauth2/token', 'grant_type=password', { authorization: right })
    assert.equal(limited.status, 429)
    assert.deepEqual(limited.json, { error: 'too_many_requests', error_description: 'Rate limit exceeded' })
    // A refusal the rest of the API shares, with no RFC 6749 code of its own: invalid_request.
    const inUrl = await post('/2/oauth2/revoke?client_secret=x', 'token=x', { authorization: right })
    assert.equal(inUrl.status, 403)
    assert.deepEqual(inUrl.json, { error: 'invalid_request', error_description: E.unableToVerifyCredentials.message })
  })

  test('/2/users/me: a 401 names the Bearer scheme; a limit is a problem with its own title', async () => {
    const none = await server.send({ method: 'GET', url: `${server.url}/2/users/me` })
    assert.equal(none.status, 401)
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="Latchkey"')
    assert.equal(none.headers.get('cache-control'), 'no-store')
    assert.equal(none.headers.get('content-type'), JSON_TYPE)
    // Failed calls count against the address, by the endpoint's limit (1 here): the next is refused.
    const limited = await server.send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization: 'Bearer x' } })
    assert.equal(limited.status, 429)
    assert.deepEqual(limited.json, { title: 'Rate limit exceeded', type: 'about:blank', status: 429, detail: 'Rate limit exceeded' })
    assert.equal(limited.headers.get('www-authenticate'), null)
  })

  test('a failure of ours (the database closed under the app): 500 in the shape of each endpoint, the cause only in the log', async (t) => {
    const { app, parsed, close } = await appLogging(t)
    await close()
    const v11 = await app.inject({ method: 'POST', url: '/oauth2/token', headers: { authorization: 'Basic eDp5', 'content-type': FORM }, payload: 'grant_type=client_credentials' })
    assert.equal(v11.statusCode, 500)
    assert.deepEqual(JSON.parse(v11.body), { errors: [{ code: 131, message: 'Internal error' }] })
    assert.equal(v11.headers['www-authenticate'], undefined)
    const v2 = await app.inject({ method: 'POST', url: '/2/oauth2/token', headers: { 'content-type': FORM }, payload: 'grant_type=refresh_token&refresh_token=x&client_id=c' })
    assert.equal(v2.statusCode, 500)
    assert.deepEqual(JSON.parse(v2.body), { error: 'server_error', error_description: 'Internal error' })
    const failures = parsed().filter((entry) => entry.msg === 'request failed')
    assert.equal(failures.length, 2)
    assert.equal(failures[0]!.level, 50)
    assert.equal(typeof failures[0]!.reqId, 'string')
    assert.match(String((failures[0]!.err as { message?: string }).message), /not open/, 'the cause, for the operator')
    assert.doesNotMatch(v11.body + v2.body, /not open/, 'never for the client')
  })

  test('in development a refusal says its reason in x-latchkey-reason (printable ASCII, bounded); the body keeps its shape', async () => {
    const missing = await server.send({ method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json`, headers: { authorization: 'OAuth oauth_nonce="n"' } })
    assert.equal(missing.status, 400)
    assert.match(String(missing.headers.get('x-latchkey-reason')), /oauth_consumer_key/)
    assert.deepEqual(Object.keys(missing.json), ['errors'])
    const inUrl = await server.send({ method: 'POST', url: `${server.url}/oauth2/token?client_s%C3%A9cret=1&client_secret=x`, headers: { 'content-type': FORM }, body: 'grant_type=client_credentials' })
    assert.equal(inUrl.headers.get('x-latchkey-reason'), 'client_secret in the URL')
    const odd = await server.send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization: 'OAuth oauth_consumer_key="caf\u00e9"' } })
    assert.match(String(odd.headers.get('x-latchkey-reason')), /^[\x20-\x7e]{1,300}$/)
    const fine = await server.send({ method: 'GET', url: `${server.url}/healthz` })
    assert.equal(fine.headers.get('x-latchkey-reason'), null, 'an answer that is no refusal has none')
  })

  test('a reason is cut to 300 characters, each one outside printable ASCII shown as ?', async () => {
    const host = `h\u00e9${'a'.repeat(400)}.example`
    const refused = await server.send({ method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json`, headers: { host, authorization: 'OAuth oauth_consumer_key="k", oauth_nonce="n", oauth_signature="s", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1", oauth_version="1.0"' } })
    assert.equal(refused.status, 400)
    assert.equal(refused.headers.get('x-latchkey-reason'), `bad host for the base string URI: h?${'a'.repeat(400)}`.slice(0, 300))
  })

  test('in production no refusal says its reason', async () => {
    const production = await injectedTestServer({ http: { dev: false, trustProxy: ['127.0.0.1'] } })
    try {
      const missing = await production.send({ method: 'GET', url: `${production.url}/1.1/account/verify_credentials.json`, headers: { authorization: 'OAuth oauth_nonce="n"', 'x-forwarded-proto': 'https' } })
      assert.equal(missing.status, 400)
      assert.equal(missing.headers.get('x-latchkey-reason'), null)
    } finally {
      await production.close()
    }
  })

  test('a refusal with a reason logs it at info, with its code; one without a reason logs nothing but the access line', async (t) => {
    const { app, parsed } = await appLogging(t)
    await app.inject({ method: 'GET', url: '/1.1/account/verify_credentials.json', headers: { authorization: 'OAuth oauth_consumer_key="' } })
    const refused = parsed().find((entry) => entry.msg === 'request refused')
    assert.equal(refused?.level, 30)
    assert.equal(refused?.code, 215)
    assert.equal(typeof refused?.detail, 'string')
    const before = parsed().length
    await app.inject({ method: 'GET', url: '/no/such/path' })
    assert.deepEqual(parsed().slice(before).map((entry) => entry.msg), ['request'])
  })
})

/** The app as `serve` builds it, logging to an array; `close` takes its database away. */
async function appLogging(t: TestContext) {
  const domain = await openTestDomain()
  const lines: string[] = []
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) })
  const app = await composeApp({ domain: domain.domain, logger, http: { dev: true, publicUrl: undefined, trustProxy: [], cookieSecret: 'x'.repeat(32) } })
  let closed = false
  const close = async () => {
    closed = true
    await domain.close()
  }
  t.after(async () => {
    await app.close()
    if (!closed) await domain.close()
  })
  return { app, close, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) }
}

describe('what a client may see of anything thrown (toServiceError) and the body it gets (errorBody)', () => {
  const cause = (statusCode: unknown, code?: string) => Object.assign(new Error('framework'), { statusCode, code })

  test('the framework\'s 413 is ours, 413 code 1001; any other 4xx of it 400 code 1000 naming its code; each keeps it as the cause', () => {
    const tooLarge = cause(413, 'FST_ERR_CTP_BODY_TOO_LARGE')
    const large = toServiceError(tooLarge)
    assert.deepEqual([large.status, large.code, large.detail, large.cause], [413, E.requestTooLarge.code, undefined, tooLarge])
    for (const status of [400, 404, 415, 499]) {
      const error = cause(status, `FST_${status}`)
      const refused = toServiceError(error)
      assert.deepEqual([refused.status, refused.code, refused.detail, refused.cause], [400, E.badRequest.code, `FST_${status}`, error], String(status))
    }
  })

  test('what is no client error is a bare 500 code 131 with the cause for the log: a 5xx, a 3xx, a status that is no number, a plain error', () => {
    for (const error of [cause(500), cause(503), cause(399), cause('400'), new Error('boom'), 'a string']) {
      const failed = toServiceError(error)
      assert.deepEqual([failed.status, failed.code, failed.publicMessage, failed.cause], [500, E.internalError.code, E.internalError.message, error])
    }
  })

  test('a storage outage is 503 code 130 with the outage as the cause; our own errors pass as they are', () => {
    const outage = new StorageUnavailableError('database unreachable')
    const unavailable = toServiceError(outage)
    assert.deepEqual([unavailable.status, unavailable.code, unavailable.cause], [503, E.overCapacity.code, outage])
    const ours = new ServiceError(E.pageNotFound)
    assert.equal(toServiceError(ours), ours)
  })

  test('the body holds code and message, and a label only where the catalogue gives one', () => {
    assert.deepStrictEqual(errorBody(new ServiceError(E.pageNotFound)), { errors: [{ code: 34, message: 'Sorry, that page does not exist' }] })
    const labelled = (Object.values(E) as ErrorDef[]).find((def) => def.label !== undefined)!
    assert.deepStrictEqual(errorBody(new ServiceError(labelled)), { errors: [{ code: labelled.code, message: labelled.message, label: labelled.label }] })
  })
})

test('the tests above leave no folder in the OS temp dir (the per-process migrated template goes at exit)', () => {
  assert.deepEqual(readdirSync(scratch).filter((name) => !name.startsWith('latchkey-template-')), [])
})
