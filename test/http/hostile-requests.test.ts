import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import fc from 'fast-check'
import { createHash } from 'node:crypto'
import { checkAuthorizationRequest } from '../../src/domain/oauth2-user/authorization-request.ts'
import { setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { approveAuthorizationRequest } from '../../src/domain/oauth2-user/consent.ts'
import { updateApp } from '../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { E } from '../../src/errors/catalogue.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { isPostgresUrl } from '../../src/storage/urls.ts'
import { runSql } from '../helpers/backends.ts'
import { sendRaw, type RawAnswer } from '../helpers/raw-http.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { signRequest, type SignOptions } from '../helpers/oauth1-client.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'

/**
 * Thousands of generated malformed requests against a running production-mode server (behind a
 * trusted proxy on loopback). Every answer must be a 4xx with a well-formed error body, the server
 * must still be ready afterwards, no credential may have been created or changed, and every error
 * code that input can reach must have been reached — a fuzzer whose requests all stop at the first
 * check proves nothing.
 */
const RUNS = Number(process.env.LATCHKEY_FUZZ_RUNS ?? 2500)

/** Every code a client's input can cause (not 130/131: those are ours, never the client's). */
const REACHABLE = [32, 34, 88, 89, 92, 99, 135, 170, 215, 220, 415, 416, 417, 1000, 1001, 1002, 1003, 1005, 1006]

const CREDENTIAL_TABLES = ['users', 'apps', 'request_tokens', 'access_tokens', 'bearer_tokens', 'oauth2_clients', 'oauth2_codes', 'oauth2_grants', 'oauth2_tokens'] as const

async function snapshot(dbPath: string): Promise<string> {
  const parts: string[] = []
  for (const table of CREDENTIAL_TABLES) {
    const text = `select * from ${table} order by 1`
    const rows = isPostgresUrl(dbPath) ? await runSql(dbPath, text) : readSqlite(dbPath, text)
    parts.push(`${table}:${JSON.stringify(rows)}`)
  }
  return parts.join('\n')
}

function readSqlite(path: string, text: string): unknown[] {
  const db = new Sqlite(path, { readonly: true })
  try {
    return db.prepare(text).all()
  } finally {
    db.close()
  }
}

interface Fixture {
  url: string
  web: AppRecord
  desktop: AppRecord
  suspended: AppRecord
  owner: { key: string; secret: string }
  bearer: string
}

interface Attempt {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  /** Raw bytes instead of an HTTP request built by fetch. */
  raw?: string
}

const PATHS = ['/oauth/request_token', '/oauth/access_token', '/1.1/oauth/invalidate_token.json', '/1.1/account/verify_credentials.json', '/oauth2/token', '/oauth2/invalidate_token', '/oauth2/introspect', '/1.1/application/rate_limit_status.json']
const garbage = fc.string({ unit: 'binary', maxLength: 40 })

/** A validly signed request as the starting point of a mutation. */
function signed(f: Fixture, options: Partial<SignOptions> & { app?: AppRecord; path?: string }): Attempt {
  const app = options.app ?? f.web
  const path = options.path ?? '/oauth/request_token'
  const request = signRequest({
    consumer: { key: app.consumerKey, secret: app.consumerSecret },
    url: `https://auth.example.org${path}`,
    oauth: { oauth_callback: 'oob' },
    ...options,
  })
  const url = new URL(request.url)
  return { method: request.method, path: url.pathname + url.search, headers: { ...request.headers, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'auth.example.org' }, body: request.body }
}

function mutations(f: Fixture): fc.Arbitrary<Attempt> {
  const now = Math.floor(Date.now() / 1000)
  const base = () => signed(f, {})
  const withHeader = (attempt: Attempt, authorization: string): Attempt => ({ ...attempt, headers: { ...attempt.headers, authorization } })
  return fc.oneof(
    // Broken Authorization headers: truncated, garbled, duplicated, missing parameters.
    fc.double({ min: 0, max: 0.99, noNaN: true }).map((share) => {
      const header = base().headers.authorization!
      return withHeader(base(), header.slice(0, Math.floor(header.length * share)))
    }),
    fc.tuple(fc.nat({ max: 250 }), garbage).map(([at, junk]) => {
      const header = base().headers.authorization!
      // fetch sends only printable header values; raw bytes go through the raw-socket cases below.
      // A quote always breaks the quoting or changes a signed value; the rest is noise around it.
      return withHeader(base(), `${header.slice(0, at)}"${junk.replace(/[^\x20-\x7e]/g, '')}${header.slice(at)}`)
    }),
    fc.constantFrom('oauth_consumer_key', 'oauth_nonce', 'oauth_signature', 'oauth_timestamp', 'oauth_signature_method').map((name) => {
      const header = base().headers.authorization!
      return withHeader(base(), header.replace(new RegExp(`${name}="[^"]*",?\\s*`), ''))
    }),
    fc.constant(null).map(() => withHeader(base(), `${base().headers.authorization}, oauth_nonce="another"`)),
    // Bad percent-encoding in the query and the body; garbage bodies with wrong content types.
    fc.constantFrom('%G0', '%', '%E2%82', '%zz', 'a=%').map((bad) => ({ ...base(), path: `/oauth/request_token?x=${bad}` })),
    fc.tuple(fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', 'multipart/form-data', ''), garbage).map(([type, body]) => ({
      ...base(),
      headers: { ...base().headers, ...(type ? { 'content-type': type } : {}), authorization: 'OAuth oauth_consumer_key="x"' },
      body: body.replace(/[^\x20-\x7e]/g, '%'),
    })),
    // Nonces, timestamps, signatures, versions, methods, keys and tokens that are wrong.
    fc.constantFrom('nönce', '\u00e9\u00e9', 'n\u0000x').map((nonce) => signed(f, { nonce })),
    fc.constantFrom(now - 3600, now + 3600, now * 1000).map((timestamp) => signed(f, { timestamp })),
    fc.constant(null).map(() => signed(f, { consumer: { key: f.web.consumerKey, secret: 'wrong' } })),
    fc.constant(null).map(() => signed(f, { consumer: { key: 'unknown-consumer-key-0000', secret: 'x' } })),
    fc.constantFrom('HMAC-SHA256', 'PLAINTEXT', 'RSA-SHA1').map((method) => signed(f, { signatureMethod: method as 'HMAC-SHA1' })),
    fc.constantFrom('2.0', '1.1', 'x').map((version) => signed(f, { version })),
    fc.constant(null).map(() => signed(f, { app: f.suspended })),
    fc.constant(null).map(() => signed(f, { path: '/1.1/account/verify_credentials.json', method: 'GET', token: { key: '1-unknown', secret: 'x' } })),
    fc.constant(null).map(() => signed(f, { path: '/oauth/access_token', token: { key: 'unknowntokenunknowntoken123', secret: 'x' }, oauth: { oauth_verifier: '1234567' } })),
    fc.constant(null).map(() => signed(f, { path: '/oauth/access_token', oauth: {} })),
    // Semantically wrong but well signed: callbacks, access types, desktop apps.
    fc.constantFrom('https://evil.example/cb', 'javascript:alert(1)', 'https://client.example/callback/../x', 'http://client.example/callback').map((callback) => signed(f, { oauth: { oauth_callback: callback } })),
    fc.constant(null).map(() => signed(f, { oauth: {} })),
    fc.constant(null).map(() => signed(f, { app: f.desktop, oauth: { oauth_callback: 'https://client.example/callback' } })),
    fc.constantFrom('admin', 'readwrite', '').map((level) => signed(f, { path: `/oauth/request_token?x_auth_access_type=${level || '%20'}` })),
    // App-only: truncated Basic credentials, grant types, bearer tokens where they do not belong.
    fc.tuple(fc.nat({ max: 60 }), fc.constantFrom('', 'grant_type=client_credentials', 'grant_type=password', 'grant_type=')).map(([cut, body]) => ({
      method: 'POST',
      path: '/oauth2/token',
      headers: { authorization: `Basic ${Buffer.from(`${f.web.consumerKey}:${f.web.consumerSecret}`).toString('base64').slice(0, cut)}`, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https' },
      body,
    })),
    fc.constant(null).map(() => ({ method: 'POST', path: '/oauth2/token', headers: { authorization: `Basic ${Buffer.from(`${f.web.consumerKey}:x`).toString('base64')}`, 'x-forwarded-proto': 'https' }, body: '' })),
    fc.constant(null).map(() => ({ method: 'GET', path: '/1.1/account/verify_credentials.json', headers: { authorization: `Bearer ${f.bearer}`, 'x-forwarded-proto': 'https' } })),
    fc.constantFrom('Bearer', 'Bearer AAAA', `Bearer ${'A'.repeat(30)}%3D`).map((authorization) => ({ method: 'GET', path: '/1.1/application/rate_limit_status.json', headers: { authorization, 'x-forwarded-proto': 'https' } })),
    fc.constantFrom('', 'access_token=', 'access_token=AAAAAAAAAAAAAAAAAAAAAnope').map((body) => ({
      method: 'POST',
      path: '/oauth2/invalidate_token',
      headers: { authorization: `Basic ${Buffer.from(`${f.web.consumerKey}:${f.web.consumerSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https' },
      body,
    })),
    // Transport, size, methods and paths.
    fc.constantFrom(...PATHS).map((path) => ({ ...signed(f, { path }), headers: { ...signed(f, { path }).headers, 'x-forwarded-proto': 'http' } })),
    fc.constantFrom(...PATHS).map((path) => ({ method: path.includes('verify_credentials') || path.includes('rate_limit') ? 'DELETE' : 'GET', path, headers: { 'x-forwarded-proto': 'https' } })),
    fc.string({ minLength: 1, maxLength: 30 }).map((tail) => ({ method: 'GET', path: `/no/such/${encodeURIComponent(tail)}`, headers: { 'x-forwarded-proto': 'https' } })),
    fc.constantFrom(5000, 9000).map((n) => ({ ...base(), path: `/oauth/request_token?q=${'x'.repeat(n)}` })),
    fc.constantFrom(70_000, 100_000).map((n) => ({ ...base(), headers: { ...base().headers, 'content-type': 'application/x-www-form-urlencoded' }, body: `a=${'b'.repeat(n)}` })),
    fc.constant(null).map(() => ({ method: 'GET', path: '/', headers: {}, raw: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n` })),
    garbage.map((junk) => ({ method: 'GET', path: '/', headers: {}, raw: `${junk.replace(/\r?\n/g, ' ')}JUNK\r\n\r\n` })),
  )
}

async function send(url: string, attempt: Attempt): Promise<RawAnswer> {
  if (attempt.raw) return sendRaw(url, attempt.raw, { halfClose: true })
  const response = await fetch(`${url}${attempt.path}`, { method: attempt.method, headers: attempt.headers, body: attempt.body, redirect: 'manual' })
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: await response.text() }
}

describe('hostile input (fuzz)', () => {
  let server: TestServer
  let fixture: Fixture

  before(async () => {
    // Limits high enough that most requests reach the checks behind them; one endpoint kept low so
    // that 429 code 88 is reached too.
    server = await startTestServer({
      http: { dev: false, trustProxy: ['127.0.0.1'] },
      settings: { rateLimitMultiplier: 50, rateLimits: { '/oauth/access_token': 1 } },
    })
    const web = await makeApp(server.domain, { callbackUrls: ['https://client.example/callback'] })
    const desktop = await makeApp(server.domain, { type: 'desktop', callbackUrls: [] })
    const suspended = await makeApp(server.domain)
    await updateApp(server.domain, suspended.id, { isSuspended: true })
    const { token } = await issueOwnerToken(server.domain, web.id)
    const bearer = (await server.domain.stores.bearerTokens.issueOrReuse({ token: `AAAAAAAAAAAAAAAAAAAAA${Date.now()}%3Dfuzz`, appId: web.id, createdAtMs: Date.now(), revokedAtMs: null })).token
    fixture = { url: server.url, web, desktop, suspended, owner: { key: token.token, secret: token.secret }, bearer }
  })
  after(() => server.close())

  test(`${RUNS} malformed requests: only 4xx with well-formed bodies, every reachable code reached, nothing written`, async () => {
    const before = await snapshot(server.dbPath)
    const counts = new Map<number, number>()
    const failures: string[] = []
    await fc.assert(
      fc.asyncProperty(mutations(fixture), async (attempt) => {
        const answer = await send(server.url, attempt)
        if (answer.status < 400 || answer.status >= 500) {
          failures.push(`${answer.status} for ${attempt.method} ${attempt.path.slice(0, 80)}: ${answer.body.slice(0, 120)}`)
          return
        }
        assert.match(answer.contentType, /^application\/json; charset=utf-8/, `content type for ${attempt.path.slice(0, 60)}`)
        const parsed = JSON.parse(answer.body) as { errors: Array<{ code: unknown; message: unknown }> }
        assert.equal(parsed.errors.length, 1)
        assert.equal(typeof parsed.errors[0]!.code, 'number')
        assert.equal(typeof parsed.errors[0]!.message, 'string')
        const code = parsed.errors[0]!.code as number
        counts.set(code, (counts.get(code) ?? 0) + 1)
      }),
      { numRuns: RUNS },
    )
    const table = [...counts].sort(([a], [b]) => a - b).map(([code, n]) => `${code}: ${n}`)
    console.log(`answers by error code: ${table.join(', ')}`)
    assert.deepEqual(failures, [], 'answers outside 4xx')
    const missed = REACHABLE.filter((code) => !counts.has(code))
    assert.deepEqual(missed, [], 'error codes the fuzzer never reached')
    for (const code of counts.keys()) assert.ok(Object.values(E).some((def) => def.code === code), `code ${code} is not in the catalogue`)

    const ready = await fetch(`${server.url}/readyz`)
    assert.equal(ready.status, 200)
    assert.equal(await snapshot(server.dbPath), before, 'a credential was created or changed')
  })
})

/**
 * The OAuth 2.0 user context endpoints under the same kind of attack: each answers in its own shape
 * (RFC 6749 §5.2 bodies at /2/oauth2/*, X's v2 problems at /2/users/me, HTML pages at the authorize
 * page, which may also send the person back to the registered redirect URI with an error, and never
 * to another), never a 5xx, never a write, and every refusal a client's input can cause is reached.
 */
interface OAuth2Fixture {
  clientId: string
  clientSecret: string
  publicClientId: string
  accessToken: string
  refreshToken: string
  bearer: string
  signedMe: Attempt
}

const REDIRECT = 'https://client.example/callback'
const OAUTH2_REACHABLE = [
  'token invalid_request (code)',
  'token invalid_request (token)',
  'token unauthorized_client',
  'token invalid_client',
  'token unsupported_grant_type',
  'token invalid_scope',
  'revoke invalid_client',
  'revoke unauthorized_client',
  'revoke revoked',
  'me 401 Unauthorized',
  'me 403 Unsupported Authentication',
  'authorize page 400',
  'authorize redirect invalid_request',
  'authorize redirect invalid_scope',
  'authorize redirect unsupported_response_type',
]

function oauth2Mutations(f: OAuth2Fixture): fc.Arbitrary<Attempt> {
  const https = { 'x-forwarded-proto': 'https' }
  const form = { ...https, 'content-type': 'application/x-www-form-urlencoded' }
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
  const token = (body: string, headers: Record<string, string> = { authorization: basic(f.clientId, f.clientSecret) }): Attempt => ({ method: 'POST', path: '/2/oauth2/token', headers: { ...form, ...headers }, body })
  const authorize = (query: Record<string, string>) => ({ method: 'GET', path: `/i/oauth2/authorize?${new URLSearchParams(query)}`, headers: https })
  const good = { response_type: 'code', client_id: f.clientId, redirect_uri: REDIRECT, scope: 'users.read', state: 's', code_challenge: 'c'.repeat(43), code_challenge_method: 'S256' }
  return fc.oneof(
    // The token endpoint: garbage bodies in either content type, grants that are not, codes and refresh tokens that are wrong.
    fc.tuple(fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', ''), garbage).map(([type, body]) => ({
      ...token(body.replace(/[^\x20-\x7e]/g, '%')),
      headers: { ...https, authorization: basic(f.clientId, f.clientSecret), ...(type ? { 'content-type': type } : {}) },
    })),
    fc.constantFrom('', 'grant_type=password', 'grant_type=client_credentials', 'grant_type=', 'grant_type=authorization_code', 'grant_type=refresh_token').map((body) => token(body)),
    fc.tuple(fc.string({ maxLength: 70 }), fc.string({ maxLength: 60 })).map(([code, verifier]) =>
      token(new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }).toString()),
    ),
    fc.string({ maxLength: 90 }).map((refresh) => token(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh }).toString())),
    fc.constantFrom('tweet.write', 'dm.read', 'nonsense').map((scope) => token(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: f.refreshToken, scope }).toString())),
    // Client authentication: none, truncated, wrong, a public client with a secret, Basic and body that disagree.
    fc.nat({ max: 80 }).map((cut) => token('grant_type=refresh_token&refresh_token=x', { authorization: basic(f.clientId, f.clientSecret).slice(0, cut) })),
    fc.constant(null).map(() => token(`grant_type=refresh_token&refresh_token=x&client_id=${f.clientId}`, {})),
    fc.constant(null).map(() => token('grant_type=refresh_token&refresh_token=x', { authorization: basic(f.clientId, 'wrong') })),
    fc.constant(null).map(() => token(`grant_type=refresh_token&refresh_token=x&client_id=${f.publicClientId}&client_secret=s`, {})),
    fc.constant(null).map(() => token(`grant_type=refresh_token&refresh_token=x&client_id=other`)),
    // Revocation: bad client authentication, or a token that is nobody's (200, nothing written).
    fc.tuple(fc.constantFrom('', basic(f.clientId, 'wrong'), basic('nobody', 'x'), basic(f.clientId, f.clientSecret)), fc.string({ maxLength: 40 })).map(([authorization, junk]) => ({
      method: 'POST',
      path: '/2/oauth2/revoke',
      headers: { ...form, ...(authorization ? { authorization } : {}) },
      body: new URLSearchParams({ token: `nobodys-${junk}`, token_type_hint: 'access_token' }).toString(),
    })),
    // /2/users/me: no token, a garbled one, an app-only bearer token, a broken OAuth 1.0a signature.
    fc.constantFrom('', 'Bearer', `Bearer ${f.accessToken.slice(1)}`, `Bearer ${f.bearer}`, 'Basic eDp5', 'Bearer a b').map((authorization) => ({
      method: 'GET',
      path: '/2/users/me',
      headers: { ...https, ...(authorization ? { authorization } : {}) },
    })),
    // Cut short, never whole: the whole header is the valid request.
    fc.nat({ max: f.signedMe.headers.authorization!.length - 1 }).map((cut) => ({ ...f.signedMe, headers: { ...f.signedMe.headers, authorization: f.signedMe.headers.authorization!.slice(0, cut) } })),
    // The authorize page: every parameter missing or wrong in turn, bad escapes, unknown clients and redirect URIs.
    fc.constantFrom(...Object.keys(good)).map((name) => authorize(Object.fromEntries(Object.entries(good).filter(([key]) => key !== name)))),
    fc.tuple(fc.constantFrom(...Object.keys(good)), fc.string({ maxLength: 30 })).map(([name, value]) => authorize({ ...good, [name]: value })),
    fc.constantFrom('%G0', '%', '%E2%82').map((bad) => ({ method: 'GET', path: `/i/oauth2/authorize?client_id=${bad}`, headers: https })),
    fc.constantFrom('https://evil.example/cb', `${REDIRECT}/x`, `${REDIRECT}?a=1`, 'javascript:alert(1)').map((redirect) => authorize({ ...good, redirect_uri: redirect })),
  )
}

/** What an answer of the OAuth 2.0 endpoints is, by its own shape; throws when it has none of theirs. */
function oauth2Outcome(attempt: Attempt, answer: RawAnswer & { location: string | null }): string {
  const path = attempt.path.split('?')[0]
  if (path === '/i/oauth2/authorize') {
    if (answer.status === 302) {
      const to = new URL(answer.location ?? '')
      assert.equal(`${to.origin}${to.pathname}`, REDIRECT, `only ever back to the registered redirect URI: ${answer.location}`)
      assert.ok(to.searchParams.get('error'), `a redirect carries an error: ${answer.location}`)
      return `authorize redirect ${to.searchParams.get('error')}`
    }
    assert.match(answer.contentType, /^text\/html/, `${attempt.path}: ${answer.status} ${answer.body.slice(0, 80)}`)
    return `authorize page ${answer.status}`
  }
  assert.match(answer.contentType, /^application\/(problem\+)?json/, `${attempt.path}: ${answer.contentType}`)
  const body = JSON.parse(answer.body) as Record<string, unknown>
  if (path === '/2/users/me') {
    assert.deepEqual(Object.keys(body).sort(), ['detail', 'status', 'title', 'type'], answer.body)
    assert.equal(body.status, answer.status)
    return `me ${answer.status} ${String(body.title)}`
  }
  const endpoint = path === '/2/oauth2/revoke' ? 'revoke' : 'token'
  if (endpoint === 'revoke' && answer.status === 200) {
    assert.deepEqual(body, { revoked: true })
    return 'revoke revoked'
  }
  assert.equal(typeof body.error, 'string', answer.body)
  assert.ok(Object.keys(body).every((key) => key === 'error' || key === 'error_description'), answer.body)
  const which = body.error === 'invalid_request' && /authorization code|token was invalid/.test(String(body.error_description)) ? ` (${/code/.test(String(body.error_description)) ? 'code' : 'token'})` : ''
  return `${endpoint} ${String(body.error)}${which}`
}

describe('hostile input to OAuth 2.0 user context (fuzz)', () => {
  let server: TestServer
  let fixture: OAuth2Fixture

  before(async () => {
    server = await startTestServer({ http: { dev: false, trustProxy: ['127.0.0.1'] }, settings: { rateLimitMultiplier: 50 } })
    const { user } = await makeUser(server.domain)
    const app = await makeApp(server.domain, { callbackUrls: [REDIRECT], accessLevel: 'read' })
    const confidential = await setOAuth2Client(server.domain, { appId: app.id, setting: 'confidential' })
    const publicApp = await makeApp(server.domain, { callbackUrls: [REDIRECT] })
    const publicClient = await setOAuth2Client(server.domain, { appId: publicApp.id, setting: 'public' })
    const verifier = 'v'.repeat(43)
    const check = await checkAuthorizationRequest(server.domain, {
      response_type: 'code',
      client_id: confidential.client!.clientId,
      redirect_uri: REDIRECT,
      scope: 'users.read offline.access',
      state: 's',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })
    if (check.outcome !== 'valid') assert.fail(check.redirectTo)
    const { redirectTo } = await approveAuthorizationRequest(server.domain, check.request, { userId: user.id, address: null })
    const tokens = await fetch(`${server.url}/2/oauth2/token`, {
      method: 'POST',
      headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${confidential.client!.clientId}:${confidential.newSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: new URL(redirectTo).searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier }),
    }).then((answer) => answer.json() as Promise<{ access_token: string; refresh_token: string }>)
    const bearer = (await server.domain.stores.bearerTokens.issueOrReuse({ token: `AAAAAAAAAAAAAAAAAAAAA${Date.now()}%3Dfuzz2`, appId: app.id, createdAtMs: Date.now(), revokedAtMs: null })).token
    const { token: owner } = await issueOwnerToken(server.domain, app.id)
    const signedMe = signRequest({ method: 'GET', consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: owner.token, secret: owner.secret }, url: 'https://auth.example.org/2/users/me' })
    fixture = {
      clientId: confidential.client!.clientId,
      clientSecret: confidential.newSecret!,
      publicClientId: publicClient.client!.clientId,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      bearer,
      signedMe: { method: 'GET', path: '/2/users/me', headers: { ...signedMe.headers, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'auth.example.org' } },
    }
  })
  after(() => server.close())

  test(`${RUNS} malformed requests to /2/oauth2/token, /2/oauth2/revoke, /2/users/me and /i/oauth2/authorize: each its own shape, never a 5xx, every refusal reached, nothing written`, async () => {
    const before = await snapshot(server.dbPath)
    const counts = new Map<string, number>()
    const failures: string[] = []
    await fc.assert(
      fc.asyncProperty(oauth2Mutations(fixture), async (attempt) => {
        const response = await fetch(`${server.url}${attempt.path}`, { method: attempt.method, headers: attempt.headers, body: attempt.body, redirect: 'manual' })
        const answer = { status: response.status, contentType: response.headers.get('content-type') ?? '', body: await response.text(), location: response.headers.get('location') }
        // 2xx only where nothing is written: a revocation of a token that is nobody's, or the consent page when the changed parameter was still a valid one.
        const isHarmless200 = attempt.path === '/2/oauth2/revoke' || attempt.path.startsWith('/i/oauth2/authorize?')
        const allowed = answer.status >= 400 ? answer.status < 500 : answer.status === 302 || (answer.status === 200 && isHarmless200)
        if (!allowed) {
          failures.push(`${answer.status} for ${attempt.method} ${attempt.path.slice(0, 80)}: ${answer.body.slice(0, 120)}`)
          return
        }
        const outcome = oauth2Outcome(attempt, answer)
        counts.set(outcome, (counts.get(outcome) ?? 0) + 1)
      }),
      { numRuns: RUNS },
    )
    console.log(`answers by outcome: ${[...counts].sort().map(([what, n]) => `${what}: ${n}`).join(', ')}`)
    assert.deepEqual(failures, [], 'answers outside 4xx (and the redirects and revocations that may be 2xx or 3xx)')
    assert.deepEqual(OAUTH2_REACHABLE.filter((what) => !counts.has(what)), [], 'refusals the fuzzer never reached')
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200)
    assert.equal(await snapshot(server.dbPath), before, 'a credential was created or changed')
  })
})
