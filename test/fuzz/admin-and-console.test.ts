import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import fc from 'fast-check'
import { SCRIPT } from '../../src/pages/views/layout.ts'
import { createAdminToken, revokeAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { isPostgresUrl } from '../../src/storage/urls.ts'
import { startAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { runSql } from '../helpers/backends.ts'
import { signRequest } from '../helpers/oauth1-client.ts'
import { testClock } from '../helpers/test-app.ts'

/**
 * Issue 29: generated hostile requests against the admin API (every operation of its OpenAPI
 * document) and the browser pages (console, settings, consent), over real sockets to a running
 * production-mode server, on whichever backend this run has (SQLite, or PostgreSQL + Redis).
 *
 * Most requests carry what gets them past the gate (a live admin token; a signed-in session cookie
 * and its CSRF value), so their input reaches the validators; the rest carry none, a forged or a
 * revoked one. Every write is broken by construction (a field of the wrong type, out of bounds,
 * unknown, a control character, an id that is no record's...), and on top of that come the
 * transport's mischief: NUL and control characters, invalid UTF-8 as raw bytes and as percent-escapes,
 * huge strings and bodies, deep JSON, duplicate JSON keys, wrong types and content types, repeated
 * form fields, odd paths and ids, raw bytes that are not HTTP.
 *
 * Asserted: never a 5xx; every error is well-formed (the admin API's an RFC 9457 problem document,
 * a page's an HTML page, anything refused before routing the JSON error body); no stack trace in
 * any body; every write refused; and, around each batch of requests, no row written.
 *
 * Which rows a refusal may write: none, except the audit trail's `sign_in.failed`. A wrong password
 * (at sign-in on the console or the consent page, at a "confirm your password" prompt, at a password
 * change) is audited by src/domain/sign-in.ts (`passwordAttempt`), throttled or not, on purpose: the
 * trail shows password guessing. So the snapshot leaves out those audit rows (and counts them), and
 * `browser_sessions.last_seen_at_ms`, which every page view of a live session moves forward. No other
 * refusal is audited: the admin API audits only changes (src/admin/routes, changeWithAudit).
 *
 * Count: LATCHKEY_FUZZ_RUNS requests in all (half to each listener); `npm test` runs the default,
 * `npm run test:long` (CI) 25,000.
 */
const RUNS = Number(process.env.LATCHKEY_FUZZ_RUNS ?? 1500)
const ADMIN_RUNS = Math.ceil(RUNS / 2)
const PAGE_RUNS = RUNS - ADMIN_RUNS
/** Requests between two snapshots of the tables. */
const BATCH = 250
/** The same requests again: LATCHKEY_FUZZ_SEED=<the seed a run printed>. */
const SEED = Number(process.env.LATCHKEY_FUZZ_SEED ?? Date.now() % 2 ** 31)

// ---------------------------------------------------------------------------------------------
// Raw HTTP: every request is written byte for byte on its own connection, so that anything can be
// sent (invalid UTF-8 in the path, NUL in a header, a body on a GET, a method fetch refuses).

interface Attempt {
  /** What the attempt aims at: an operation id, a page, or `raw`. */
  aim: string
  /** How it was broken, for the report. */
  how: string
  method: string
  /** Request target as bytes (latin1: each char one byte). */
  target: string
  headers: Array<[string, string]>
  body?: Buffer
  /** Instead of a request built from the fields above: these bytes. */
  raw?: Buffer
  /** Sent with a live admin token or session and CSRF value (reaches the validators). */
  authenticated: boolean
  /** A write that must be refused (4xx): it is broken by construction. */
  mustRefuse: boolean
  /** A well-formed request to a page route with its method: any refusal must be an HTML page. */
  routedPage?: boolean
}

interface Answer {
  status: number
  headers: Map<string, string[]>
  body: string
}

const header = (answer: Answer, name: string) => answer.headers.get(name)?.[0] ?? ''

function requestBytes(attempt: Attempt, port: number): Buffer {
  if (attempt.raw) return attempt.raw
  const lines = [`${attempt.method} ${attempt.target} HTTP/1.1`]
  if (!attempt.headers.some(([name]) => name.toLowerCase() === 'host')) lines.push(`Host: 127.0.0.1:${port}`)
  for (const [name, value] of attempt.headers) lines.push(`${name}: ${value}`)
  if (attempt.body && !attempt.headers.some(([name]) => name.toLowerCase() === 'content-length')) lines.push(`Content-Length: ${attempt.body.length}`)
  lines.push('Connection: close', '', '')
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), attempt.body ?? Buffer.alloc(0)])
}

function parseAnswer(bytes: Buffer): Answer | undefined {
  const end = bytes.indexOf('\r\n\r\n')
  if (end === -1) return undefined
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0)
  if (!status) return undefined
  const headers = new Map<string, string[]>()
  for (const line of lines) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).trim().toLowerCase()
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()])
  }
  let body = bytes.subarray(end + 4)
  if (/chunked/i.test(headers.get('transfer-encoding')?.[0] ?? '')) {
    const parts: Buffer[] = []
    let at = 0
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at)
      const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16)
      if (lineEnd === -1 || !(size > 0)) break
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size))
      at = lineEnd + 2 + size + 2
    }
    body = Buffer.concat(parts)
  } else if (headers.has('content-length')) {
    body = body.subarray(0, Number(headers.get('content-length')![0]))
  }
  return { status, headers, body: body.toString('utf8') }
}

/** One request on its own connection; the answer once the server closes it. */
function exchange(port: number, bytes: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let settled = false
    const finish = (error?: Error) => {
      if (settled) return
      settled = true
      socket.destroy()
      const answer = parseAnswer(Buffer.concat(chunks))
      if (answer) resolve(answer)
      else reject(error ?? new Error(`no HTTP answer (${Buffer.concat(chunks).length} bytes) to ${JSON.stringify(bytes.subarray(0, 80).toString('latin1'))}`))
    }
    socket.setTimeout(15_000, () => finish(new Error('no answer within 15 s')))
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('end', () => finish())
    socket.on('close', () => finish())
    // A server that answers before reading the whole body (413) may reset the connection under us.
    socket.on('error', (error) => finish(error))
    // Not end(): Node's server drops a request whose client half-closes before the answer (a slow
    // password check); `Connection: close` makes the server close once it has answered.
    socket.write(bytes)
  })
}

// ---------------------------------------------------------------------------------------------
// What every answer must be.

/** A stack frame, a Node internal, a source path: what a body must never show. */
const STACK_TRACE = /\n\s+at |\bat [\w$.<>]+ \(|node:internal|node_modules\/|\/src\/[\w/.-]+\.[jt]s\b|\.ts:\d+:\d+/

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

/** The public service's JSON error: what Node's parser refusals and unrouted paths answer. */
function jsonErrorMistakes(answer: Answer): string[] {
  if (!header(answer, 'content-type').startsWith('application/json; charset=utf-8')) return [`content-type ${header(answer, 'content-type')}`]
  try {
    const doc = JSON.parse(answer.body) as { errors?: Array<{ code?: unknown; message?: unknown }> }
    const [entry] = doc.errors ?? []
    return doc.errors?.length === 1 && typeof entry?.code === 'number' && typeof entry.message === 'string' ? [] : ['errors body']
  } catch {
    return ['body is not JSON']
  }
}

function htmlPageMistakes(answer: Answer): string[] {
  const mistakes: string[] = []
  if (header(answer, 'content-type') !== 'text/html; charset=utf-8') mistakes.push(`content-type ${header(answer, 'content-type')}`)
  if (!answer.body.startsWith('<!doctype html>') || !answer.body.trimEnd().endsWith('</html>') || !/<title>[^<]+<\/title>/.test(answer.body)) mistakes.push('not a whole HTML page')
  if (!/<h1>[^<]+<\/h1>/.test(answer.body)) mistakes.push('no heading')
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

/** A header value Node's parser refuses (a control character): answered before routing, with the JSON error. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const refusedByParser = (attempt: Attempt) => attempt.headers.some(([, value]) => /[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))

function checkPage(attempt: Attempt, answer: Answer): string[] {
  const mistakes: string[] = []
  if (answer.status >= 500) mistakes.push(`${answer.status}`)
  if (attempt.mustRefuse && answer.status < 300) mistakes.push(`a broken write was accepted (${answer.status})`)
  if (STACK_TRACE.test(answer.body)) mistakes.push('stack trace in the body')
  // Pages have no script but the one Copy script (CSP: by its hash): any other <script tag would be input reflected unescaped.
  if (/<script/i.test(answer.body.replace(`<script>${SCRIPT}</script>`, ''))) mistakes.push('<script in the body')
  if (answer.status >= 400 && attempt.method !== 'HEAD') {
    const isHtml = header(answer, 'content-type').startsWith('text/html')
    if ((attempt.routedPage && !refusedByParser(attempt)) || isHtml) mistakes.push(...htmlPageMistakes(answer))
    else mistakes.push(...jsonErrorMistakes(answer))
  }
  return mistakes
}

// ---------------------------------------------------------------------------------------------
// The rows a refused request must not write (see the comment at the top).

const SNAPSHOT_QUERIES: Record<string, string> = {
  users: 'select * from users order by id',
  apps: 'select * from apps order by id',
  request_tokens: 'select * from request_tokens order by 1',
  access_tokens: 'select * from access_tokens order by 1',
  bearer_tokens: 'select * from bearer_tokens order by 1',
  admin_tokens: 'select * from admin_tokens order by id',
  previous_consumer_keys: 'select * from previous_consumer_keys order by app_id',
  browser_sessions: 'select id, user_id, generation, created_at_ms, password_at_ms, user_agent, address, ended_at_ms from browser_sessions order by id',
  audit_events: "select * from audit_events where event <> 'sign_in.failed' order by id",
}

async function query(dbPath: string, text: string): Promise<unknown[]> {
  if (isPostgresUrl(dbPath)) return runSql(dbPath, text)
  const db = new Sqlite(dbPath, { readonly: true })
  try {
    return db.prepare(text).all()
  } finally {
    db.close()
  }
}

async function snapshot(dbPath: string): Promise<Map<string, string>> {
  const tables = new Map<string, string>()
  for (const [table, text] of Object.entries(SNAPSHOT_QUERIES)) tables.set(table, JSON.stringify(await query(dbPath, text)))
  return tables
}

const changedTables = (before: Map<string, string>, now: Map<string, string>) => [...before.keys()].filter((t) => before.get(t) !== now.get(t))

async function failedSignIns(dbPath: string): Promise<number> {
  const [row] = (await query(dbPath, "select count(*) as n from audit_events where event = 'sign_in.failed'")) as Array<{ n: number | string }>
  return Number(row?.n ?? 0)
}

// ---------------------------------------------------------------------------------------------
// Building blocks of hostile input.

const CONTROLS = ['\u0000', '\u0001', '\u0007', '\b', '\u000b', '\f', '\u001b', '\u001f', '\u007f']
const control = fc.constantFrom(...CONTROLS)
/**
 * Text with a control character inside it (refused by every text field: src/domain/plain-text.ts);
 * never at either end, where trimming (\v and \f are white space) would take it away.
 */
const withControl = fc.tuple(fc.string({ maxLength: 12 }), control, fc.string({ maxLength: 12 })).map(([a, c, b]) => `Ok${a}${c}x${b}`)
/** Any text: control characters, lone surrogates, astral characters, markup. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '\ud800', 'a\udfffb', '\u{1f600}', '<script>alert(1)</script>', '"><img src=x>', '../../etc/passwd', '%00', '${x}', '\u202e', '\ufeff'),
)
/** Byte sequences that are not UTF-8: a stray continuation byte, a truncated sequence, an overlong form, a surrogate, 0xFF. */
const INVALID_UTF8 = [[0xff], [0xfe, 0xff], [0x80], [0xc3, 0x28], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]]
const invalidUtf8 = fc.constantFrom(...INVALID_UTF8.map((bytes) => Buffer.from(bytes)))
const percentOf = (bytes: Buffer) => [...bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('')
/** Percent-encoding of any text; a lone surrogate, which has no UTF-8 form, as its WTF-8 bytes (which are no UTF-8 either). */
function encodeLoose(text: string): string {
  try {
    return encodeURIComponent(text)
  } catch {
    return [...text].map((c) => (/^[\ud800-\udfff]$/.test(c) ? percentOf(Buffer.from([0xed, 0xa0 | ((c.charCodeAt(0) >> 6) & 0x0f), 0x80 | (c.charCodeAt(0) & 0x3f)])) : encodeURIComponent(c))).join('')
  }
}
/** Percent-escapes that are malformed or decode to no UTF-8. */
const badEscape = fc.oneof(invalidUtf8.map(percentOf), fc.constantFrom('%', '%G0', '%zz', '%2', '%%', '%u0041', '%E2%82%2'))
/** Longer than any text field's bound (the longest, a password, is 1024). */
const hugeString = fc.constantFrom(1_025, 5_000, 40_000).map((n) => 'x'.repeat(n))

/** Any JSON value of the wrong kind for a field of `kind`. */
function wrongType(kind: 'string' | 'boolean' | 'array' | 'integer'): fc.Arbitrary<unknown> {
  const all = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 10 }),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  )
  return all.filter((v) => {
    if (kind === 'string') return typeof v !== 'string'
    if (kind === 'boolean') return typeof v !== 'boolean'
    if (kind === 'array') return !Array.isArray(v)
    return !(typeof v === 'number' && Number.isInteger(v))
  })
}

const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`

// ---------------------------------------------------------------------------------------------
// Fixture: one server, its admin listener, people signed in, apps, request tokens.

interface Identity {
  cookie: string
  csrf: string
}

interface Fixture {
  server: AdminTestServer
  adminPort: number
  publicPort: number
  adminToken: string
  revokedToken: string
  /** A person with a live admin-made user id, and their apps. */
  userIds: string[]
  appIds: string[]
  /** An app that was deleted: its id is no record's. */
  deletedAppId: string
  screenNames: string[]
  /** Signed in (password no longer fresh), with the app ids each owns. */
  people: Array<Identity & { ownAppIds: string[]; otherAppId: string; screenName: string }>
  /** A visitor who has not signed in: a cookie with a CSRF value only. */
  visitor: Identity
  requestTokens: string[]
  operations: Array<{ id: string; method: string; path: string }>
}

const PUBLIC_HOST = 'auth.example.org'
const SETUP_ADDRESS = '10.99.0.1'
/** The addresses requests come from (X-Forwarded-For): few enough that the sign-in throttle soon answers without hashing. */
const ADDRESSES = Array.from({ length: 12 }, (_, i) => `10.77.0.${i + 1}`)
const ODD_FORWARDED_FOR = ['garbage', '999.1.1.1', '', '1.2.3.4, 5.6.7.8, 9.9.9.9', '::ffff:10.77.0.1', '[::1]', 'unknown', '10.77.0.1\u0000']

const httpsHeaders = (address: string): Array<[string, string]> => [
  ['X-Forwarded-Proto', 'https'],
  ['X-Forwarded-Host', PUBLIC_HOST],
  ['X-Forwarded-For', address],
]

function cookieOf(answer: Answer): string | undefined {
  for (const line of answer.headers.get('set-cookie') ?? []) {
    const pair = line.split(';')[0]!
    if (pair.startsWith('__Host-latchkey_session=') && pair.length > '__Host-latchkey_session='.length) return pair
  }
  return undefined
}

const csrfIn = (page: string) => /name="csrf_token" value="([^"]+)"/.exec(page)?.[1]

async function pageGet(port: number, path: string, cookie?: string): Promise<Answer> {
  const headers: Array<[string, string]> = [...httpsHeaders(SETUP_ADDRESS), ...(cookie ? [['Cookie', cookie] as [string, string]] : [])]
  return exchange(port, requestBytes({ aim: 'setup', how: '', method: 'GET', target: path, headers, authenticated: false, mustRefuse: false }, port))
}

async function pagePost(port: number, path: string, cookie: string, fields: Record<string, string>): Promise<Answer> {
  const headers: Array<[string, string]> = [...httpsHeaders(SETUP_ADDRESS), ['Cookie', cookie], ['Content-Type', 'application/x-www-form-urlencoded']]
  const body = Buffer.from(new URLSearchParams(fields).toString())
  return exchange(port, requestBytes({ aim: 'setup', how: '', method: 'POST', target: path, headers, body, authenticated: false, mustRefuse: false }, port))
}

async function signIn(port: number, screenName: string, password: string): Promise<Identity> {
  const form = await pageGet(port, '/console')
  const visitorCookie = cookieOf(form)
  const csrf = csrfIn(form.body)
  assert.ok(visitorCookie && csrf, 'the sign-in page gives a cookie and a CSRF value')
  const answer = await pagePost(port, '/console/sign-in', visitorCookie, { csrf_token: csrf, username: screenName, password, next: '/console' })
  assert.equal(answer.status, 302, answer.body)
  const cookie = cookieOf(answer)
  assert.ok(cookie)
  const home = await pageGet(port, '/console', cookie)
  const sessionCsrf = csrfIn(home.body)
  assert.ok(sessionCsrf && home.body.includes(`@${screenName}`), 'signed in')
  return { cookie, csrf: sessionCsrf }
}

async function setUp(): Promise<Fixture> {
  const clock = testClock()
  const server: AdminTestServer = await startAdminTestServer({
    clock,
    http: { dev: false, trustProxy: ['127.0.0.1'], allowSignup: true },
    settings: {
      // Windows of one second: thousands of requests reach the checks behind the page, change and
      // admin-token budgets instead of stopping at a 429 (a 429 is still checked like any answer).
      rateLimitWindowSeconds: 1,
      rateLimitMultiplier: 50,
      // Two wrong passwords per account or address, then 429 without hashing: the fuzz stays fast.
      signInMaxFailures: 2,
      requestTokenTtlSeconds: 3600,
    },
  })
  try {
    return await fixtureOn(server, clock)
  } catch (error) {
    await server.close()
    throw error
  }
}

async function fixtureOn(server: AdminTestServer, clock: ReturnType<typeof testClock>): Promise<Fixture> {
  const adminPort = Number(new URL(server.adminUrl).port)
  const publicPort = Number(new URL(server.url).port)
  const revoked = await createAdminToken(server.domain, 'revoked')
  await revokeAdminToken(server.domain, revoked.record.id)

  const userIds: string[] = []
  const screenNames: string[] = []
  const passwords: string[] = []
  for (let i = 0; i < 3; i++) {
    const screenName = `fuzz_dev${i}`
    const password = `fuzz password ${i} ${Date.now()}`
    const made = await server.admin('POST', '/admin/v1/users', { screen_name: screenName, password, name: `Fuzz Dev ${i}` })
    assert.equal(made.status, 201, made.text)
    userIds.push(made.json.user_id)
    screenNames.push(screenName)
    passwords.push(password)
  }
  const appFor = async (owner: string, name: string, type = 'web') => {
    const made = await server.admin('POST', '/admin/v1/apps', {
      name,
      owner,
      callbacks: type === 'web' ? ['https://client.example/callback'] : [],
      type,
      sign_in: true,
      access_level: 'read-write',
    })
    assert.equal(made.status, 201, made.text)
    return made.json as { app_id: string; consumer_key: string; consumer_secret: string }
  }
  const apps = [await appFor(userIds[0]!, 'Fuzz web'), await appFor(userIds[0]!, 'Fuzz desktop', 'desktop'), await appFor(userIds[1]!, 'Fuzz other'), await appFor(userIds[2]!, 'Fuzz third')]
  const doomed = await appFor(userIds[2]!, 'Fuzz deleted')
  assert.equal((await server.admin('DELETE', `/admin/v1/apps/${doomed.app_id}`)).status, 204)

  // Request tokens for the consent pages, one per flow kind (web callback, desktop oob).
  const requestTokens: string[] = []
  for (const [app, callback] of [[apps[0]!, 'https://client.example/callback'], [apps[1]!, 'oob']] as const) {
    const signed = signRequest({
      consumer: { key: app.consumer_key, secret: app.consumer_secret },
      url: `https://${PUBLIC_HOST}/oauth/request_token`,
      oauth: { oauth_callback: callback },
      timestamp: Math.floor(clock.nowMs() / 1000),
    })
    const headers: Array<[string, string]> = [...httpsHeaders(SETUP_ADDRESS), ...Object.entries(signed.headers)]
    const answer = await exchange(publicPort, requestBytes({ aim: 'setup', how: '', method: 'POST', target: '/oauth/request_token', headers, authenticated: false, mustRefuse: false }, publicPort))
    assert.equal(answer.status, 200, answer.body)
    requestTokens.push(new URLSearchParams(answer.body).get('oauth_token')!)
  }

  const people: Fixture['people'] = []
  for (let i = 0; i < 3; i++) {
    const identity = await signIn(publicPort, screenNames[i]!, passwords[i]!)
    const ownAppIds = i === 0 ? [apps[0]!.app_id, apps[1]!.app_id] : [apps[i + 1]!.app_id]
    people.push({ ...identity, ownAppIds, otherAppId: apps[(i + 2) % 4]!.app_id, screenName: screenNames[i]! })
  }
  const visitorPage = await pageGet(publicPort, '/console')
  const visitor = { cookie: cookieOf(visitorPage)!, csrf: csrfIn(visitorPage.body)! }
  // Past the 10 minutes of a fresh password: secrets, deletions and new keys now ask for it again.
  clock.advance(11 * 60_000)

  const document = (await server.admin('GET', '/admin/v1/openapi.json')).json as { paths: Record<string, Record<string, { operationId: string }>> }
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ id: operation.operationId, method: method.toUpperCase(), path })),
  )
  return {
    server,
    adminPort,
    publicPort,
    adminToken: server.token,
    revokedToken: revoked.token,
    userIds,
    appIds: apps.map((a) => a.app_id),
    deletedAppId: doomed.app_id,
    screenNames,
    people,
    visitor,
    requestTokens,
    operations,
  }
}

// ---------------------------------------------------------------------------------------------
// The admin API's attempts.

type Json = unknown
/** An object as entries, so that a key may come twice (JSON.parse keeps the last). */
type Entries = Array<[string, Json]>

interface BodyPlan {
  /** The entries of a body that would be accepted. */
  valid: (f: Fixture) => Entries
  /** Changes that each make it refused, whatever else the body holds. */
  breaks: (f: Fixture) => fc.Arbitrary<{ how: string; entries: (valid: Entries) => Entries }>
}

const setField = (name: string, value: Json) => (valid: Entries): Entries => [...valid, [name, value]]
const dropField = (name: string) => (valid: Entries): Entries => valid.filter(([k]) => k !== name)

const USER_BREAKS = (f: Fixture, isNew: boolean) =>
  fc.oneof(
    fc.tuple(fc.constantFrom(...(isNew ? ['screen_name', 'password', 'name'] : ['name', 'password'])), wrongType('string')).map(([k, v]) => ({ how: `${k} of the wrong type`, entries: setField(k, v) })),
    withControl.map((v) => ({ how: 'name with a control character', entries: setField('name', v) })),
    fc.constantFrom('', 'x'.repeat(51)).map((v) => ({ how: 'name out of bounds', entries: setField('name', v) })),
    hugeString.map((v) => ({ how: 'huge password', entries: setField('password', v) })),
    fc.constantFrom('short', '', '1234567').map((v) => ({ how: 'password too short', entries: setField('password', v) })),
    fc.tuple(fc.constantFrom('admin', 'id', 'user_id', 'screen_name_lower', 'NAME', '', 'name\u0000', '__proto__x', 'password_hash'), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
    ...(isNew
      ? [
          fc.oneof(fc.constantFrom('two words', 'a'.repeat(16), '', 'dash-ed', 'ümlaut', 'x\u0000', 'x\ud800'), withControl).map((v) => ({ how: 'screen_name not a screen name', entries: setField('screen_name', v) })),
          fc.constant({ how: 'screen_name taken', entries: setField('screen_name', f.screenNames[0]!.toUpperCase()) }),
          fc.constantFrom('screen_name', 'password').map((k) => ({ how: `${k} missing`, entries: dropField(k) })),
        ]
      : [
          fc.constant({ how: 'screen_name cannot change', entries: setField('screen_name', 'renamed') }),
          wrongType('boolean').map((v) => ({ how: 'disabled not a boolean', entries: setField('disabled', v) })),
          fc.constant({ how: 'empty patch', entries: () => [] }),
        ]),
  )

const APP_BREAKS = (f: Fixture, isNew: boolean) =>
  fc.oneof(
    fc.tuple(fc.constantFrom('name', 'type', 'access_level', 'description', 'website'), wrongType('string')).map(([k, v]) => ({ how: `${k} of the wrong type`, entries: setField(k, v) })),
    fc.tuple(fc.constantFrom('sign_in', 'resource_server', ...(isNew ? [] : ['suspended'])), wrongType('boolean')).map(([k, v]) => ({ how: `${k} not a boolean`, entries: setField(k, v) })),
    fc.tuple(fc.constantFrom('callbacks', 'signature_methods'), wrongType('array')).map(([k, v]) => ({ how: `${k} not an array`, entries: setField(k, v) })),
    fc.tuple(fc.constantFrom('name', 'description', 'website'), withControl).map(([k, v]) => ({ how: `${k} with a control character`, entries: setField(k, k === 'website' ? `https://ok.example/${v}` : v) })),
    fc.constantFrom('', '   ', 'n'.repeat(65)).map((v) => ({ how: 'name out of bounds', entries: setField('name', v) })),
    hugeString.map((v) => ({ how: 'huge description', entries: setField('description', v) })),
    fc.constantFrom('javascript:alert(1)', 'ftp://x.example', 'https://a b.example', '//no-scheme.example', 'x'.repeat(1025)).map((v) => ({ how: 'website not http', entries: setField('website', v) })),
    fc
      .constantFrom(['/relative'], ['https://ok.example/cb#frag'], ['javascript:alert(1)'], [''], ['https://ok.example/\u0000'], Array.from({ length: 11 }, (_, i) => `https://ok.example/${i}`), [5], [null], ['x'.repeat(1025)])
      .map((v) => ({ how: 'callbacks refused', entries: setField('callbacks', v) })),
    fc.constantFrom('mobile', '', 'WEB', 'web\u0000').map((v) => ({ how: 'type unknown', entries: setField('type', v) })),
    fc.constantFrom('admin', 'READ', '', 'read-write-everything').map((v) => ({ how: 'access level unknown', entries: setField('access_level', v) })),
    fc.constantFrom([], ['RSA-SHA1'], ['HMAC-SHA1', 'HMAC-SHA1'], ['hmac-sha1', 'x', 'y', 'z'], [1]).map((v) => ({ how: 'signature methods refused', entries: setField('signature_methods', v) })),
    fc.tuple(fc.constantFrom('consumer_secret', 'consumer_key', 'app_id', 'created_at', 'id', ''), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
    ...(isNew
      ? [
          fc.constantFrom('42', '0', '99999999999999999999', f.deletedAppId, 'abc', '', '1e3', ' 1').map((v) => ({ how: 'owner unknown or not an id', entries: setField('owner', v) })),
          wrongType('string').map((v) => ({ how: 'owner not a string', entries: setField('owner', v) })),
          // Only these two are required: the rest have the defaults of APP_DEFAULTS.
          fc.constantFrom('name', 'owner').map((k) => ({ how: `${k} missing`, entries: dropField(k) })),
          // The same name as an app of the owner (any case): 409.
          fc.constant({ how: 'name taken', entries: setField('name', 'FUZZ WEB') }),
        ]
      : [
          fc.constant({ how: 'owner cannot change', entries: setField('owner', f.userIds[1]!) }),
          fc.constant({ how: 'empty patch', entries: () => [] }),
        ]),
  )

const BODY_PLANS: Record<string, BodyPlan> = {
  createUser: { valid: () => [['screen_name', 'fuzz_new'], ['password', 'long enough 1'], ['name', 'New']], breaks: (f) => USER_BREAKS(f, true) },
  updateUser: { valid: () => [['name', 'Renamed']], breaks: (f) => USER_BREAKS(f, false) },
  createApp: {
    valid: (f) => [['name', 'Fuzz made'], ['owner', f.userIds[0]!], ['callbacks', ['https://ok.example/cb']], ['type', 'web'], ['sign_in', false], ['access_level', 'read'], ['description', 'd'], ['website', 'https://ok.example']],
    breaks: (f) => APP_BREAKS(f, true),
  },
  updateApp: { valid: () => [['description', 'changed']], breaks: (f) => APP_BREAKS(f, false) },
  rotateKeys: {
    valid: () => [['grace_seconds', 60]],
    breaks: () =>
      fc.oneof(
        fc.constantFrom(0, -1, 604801, 1.5, 1e20, '60', null, true, [60]).map((v) => ({ how: 'grace_seconds refused', entries: setField('grace_seconds', v) })),
        wrongType('boolean').map((v) => ({ how: 'revoke_tokens not a boolean', entries: setField('revoke_tokens', v) })),
        fc.tuple(fc.constantFrom('grace', 'revoke', 'keys', ''), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
      ),
  },
  rotateClientSecret: {
    valid: () => [['grace_seconds', 60]],
    breaks: () =>
      fc.oneof(
        fc.constantFrom(0, -1, 604801, 1.5, 1e20, '60', null, true, [60]).map((v) => ({ how: 'grace_seconds refused', entries: setField('grace_seconds', v) })),
        fc.tuple(fc.constantFrom('grace', 'revoke_tokens', 'client_secret', ''), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
      ),
  },
}

/** The operations of the OpenAPI document this fuzzer knows; a new one fails the test until it is added here. */
const KNOWN_OPERATIONS = new Set([
  'createUser',
  'listUsers',
  'getUser',
  'updateUser',
  'listAuthorizations',
  'revokeAuthorization',
  'createApp',
  'listApps',
  'getApp',
  'updateApp',
  'deleteApp',
  'rotateKeys',
  'rotateClientSecret',
  'issueOwnerToken',
  'revokeBearerToken',
  'listAuditEvents',
])

const serialize = (entries: Entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`

/** The JSON text of a broken body, and the transport's mischief on top of it. */
function jsonText(f: Fixture, plan: BodyPlan): fc.Arbitrary<{ how: string; body: Buffer }> {
  const broken = plan.breaks(f).map((b) => ({ how: b.how, entries: b.entries(plan.valid(f)) }))
  return fc.oneof(
    { weight: 4, arbitrary: broken.map((b) => ({ how: b.how, body: Buffer.from(serialize(b.entries)) })) },
    // The broken value first, then every valid field again: duplicate keys whose last copy is the valid one
    // would be accepted, so the broken one is always the last of its name.
    {
      weight: 1,
      arbitrary: broken
        .filter((b) => b.entries.length > plan.valid(f).length)
        .map((b) => ({ how: `${b.how}, duplicate keys`, body: Buffer.from(serialize([...plan.valid(f), ...b.entries])) })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(broken, fc.nat()).map(([b, at]) => {
        // A strict prefix, never empty: an empty body is no body, which rotate-keys and rotate-client-secret accept.
        const text = serialize(b.entries)
        return { how: 'truncated JSON', body: Buffer.from(text.slice(0, 1 + (at % (text.length - 1)))) }
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(broken, control).map(([b, c]) => ({ how: 'raw control character inside a JSON string', body: Buffer.from(serialize(b.entries).replace(/":"/, `":"${c}`)) })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(broken, invalidUtf8).map(([b, bytes]) => {
        const text = serialize(b.entries)
        const at = text.indexOf('":"') + 3
        return { how: 'invalid UTF-8 inside a JSON string', body: at > 2 ? Buffer.concat([Buffer.from(text.slice(0, at)), bytes, Buffer.from(text.slice(at))]) : Buffer.concat([bytes, Buffer.from(text)]) }
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(broken, fc.constantFrom('\ufeff', ' \n\t', '')).map(([b, prefix]) => ({ how: 'BOM or whitespace, then a broken body', body: Buffer.from(`${prefix}${serialize(b.entries)}${prefix}`) })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(1, 100, 5_000, 30_000).map((depth) => ({ how: `nested ${depth} deep`, body: Buffer.from(`{"name":${nested(depth)}}`) })),
    },
    { weight: 1, arbitrary: fc.constantFrom(1, 1000, 30_000).map((depth) => ({ how: `top-level array nested ${depth} deep`, body: Buffer.from(nested(depth, serialize(plan.valid(f)))) })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '{"__proto__":{"admin":true}}',
          '{"constructor":{"prototype":{"admin":true}}}',
          "{'name':'x'}",
          '{"name":"x",}',
          '{"name":NaN}',
          '{"name":Infinity}',
          '{"name":0x10}',
          '{"name":"x"} {"name":"y"}',
          '{"name":"x"/*c*/}',
          '{"name":"\\x41"}',
          '{"name":1e999}',
          'null',
          'true',
          '"a string"',
          '[]',
          '0',
          '{}}',
          '{',
        )
        .map((text) => ({ how: `hostile JSON text ${text}`, body: Buffer.from(text) })),
    },
    { weight: 1, arbitrary: fc.constantFrom(65 * 1024, 70_000, 200_000).map((n) => ({ how: `${n}-byte body`, body: Buffer.from(`{"name":"${'x'.repeat(n)}"}`) })) },
    // At least a byte: an empty body is no body (see truncated JSON).
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => ({ how: 'random bytes', body: Buffer.from(bytes) })) },
  )
}

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/problem+json', 'text/json', '', 'application/json\u0001']

interface Ids {
  user: fc.Arbitrary<{ value: string; exists: boolean }>
  app: fc.Arbitrary<{ value: string; exists: boolean }>
}

/** An id that is no record's: numbers that were never issued, a deleted app, and things that are no id at all. */
const nonexistentId = (f: Fixture) =>
  fc.oneof(
    fc.bigInt({ min: 0n, max: 10n ** 12n }).map(String),
    fc.constantFrom('0', '00000000000000000000', '99999999999999999999', '18446744073709551616', f.deletedAppId, `${f.appIds[0]}0`),
  )
const oddId = fc.oneof(
  fc.constantFrom('abc', '-1', '1e3', '1.0', '+1', ' 1', '1 ', '0x10', '999999999999999999999', '', '%00', '%0A', '1%00', '..%2F..', '%2F', '١٢٣', '1;x', '1?x=1', '1#x', '%20'),
  badEscape,
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.constantFrom(300, 3000).map((n) => '9'.repeat(n)),
)

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
  const pathFor = (template: string, user: string, app: string) => template.replace('{user_id}', user).replace('{app_id}', app)

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
    // Bytes that end as a request head does. (Not blank lines alone: those are no request, and Node
    // closes the connection silently once it times out, ten seconds later.)
    fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 80 }).map((b) => Buffer.concat([Buffer.from(b), Buffer.from('\r\n\r\n')])), fc.constantFrom(Buffer.from('GET /admin/v1/users HTTP/9.9\r\n\r\n'), Buffer.from('GET\r\n\r\n'), Buffer.from('GET /admin/v1/users HTTP/1.1\r\nHost: x\r\nAuthorization Bearer\r\n\r\n'))).map((raw): Attempt => ({
      aim: 'raw',
      how: `raw bytes ${JSON.stringify(raw.toString('latin1').slice(0, 30))}`,
      method: 'RAW',
      target: '',
      headers: [],
      raw,
      authenticated: false,
      mustRefuse: false,
    })),
  )
  return fc.oneof({ weight: 9, arbitrary: request }, { weight: 1, arbitrary: oddRequests })
}

// ---------------------------------------------------------------------------------------------
// The pages' attempts.

type Auth = 'person' | 'visitor' | 'none' | 'forged' | 'wrong-csrf' | 'http-cookie'

interface PageRoute {
  method: 'GET' | 'POST'
  /** `:app` stands for an app id. */
  path: string
  /** Fields of the form this route takes: wrong passwords, refused values (the first of a repeated field is the one read). */
  fields?: (f: Fixture, person: Fixture['people'][number]) => fc.Arbitrary<{ how: string; pairs: Array<[string, string]> }>
  /**
   * With a live session and the right CSRF value, the route would change something even with
   * these fields: it is then sent only without them (no session, forged, wrong CSRF) or to an id
   * that is no app of the person's.
   */
  destructive?: boolean
}

const pairs = (...entries: Array<[string, string] | undefined>) => entries.filter((e): e is [string, string] => e !== undefined)
/** A form value of any kind: text, controls, huge, markup. */
const formValue = fc.oneof(anyText, withControl, hugeString.map((s) => s.slice(0, 3000)))

/** Fields of the app form with one that is refused by construction. */
function appForm(): fc.Arbitrary<{ how: string; pairs: Array<[string, string]> }> {
  const valid: Record<string, string> = { name: 'Fuzz made', description: '', website: '', callbacks: 'https://client.example/callback', type: 'web', access_level: 'read-write' }
  const breaks = fc.oneof(
    fc.oneof(withControl, fc.constantFrom('', '   ', 'n'.repeat(65))).map((v) => ['name', v] as [string, string]),
    fc.constantFrom('javascript:alert(1)', 'ftp://x', 'https://a b', 'x'.repeat(2000)).map((v) => ['website', v] as [string, string]),
    withControl.map((v) => ['website', `https://ok.example/${v}`] as [string, string]),
    fc.constantFrom('x\u0000', 'd'.repeat(501), 'a\u001bb').map((v) => ['description', v] as [string, string]),
    fc.constantFrom('/relative', 'https://ok.example/#x', 'javascript:alert(1)', Array.from({ length: 11 }, (_, i) => `https://ok.example/${i}`).join('\n'), 'https://ok.example/\u0000').map((v) => ['callbacks', v] as [string, string]),
    fc.constantFrom('mobile', '', 'WEB ').map((v) => ['type', v] as [string, string]),
    fc.constantFrom('admin', '', 'READ').map((v) => ['access_level', v] as [string, string]),
  )
  return fc.tuple(breaks, fc.array(fc.tuple(fc.constantFrom('name', 'description', 'website', 'callbacks', 'sign_in', 'unknown', 'csrf_token'), formValue), { maxLength: 3 })).map(([broken, noise]) => {
    // The broken field first: the first value of a repeated field is the one used (src/pages/form-fields.ts).
    const fields = Object.entries(valid).filter(([k]) => k !== broken[0])
    return { how: `app form: ${broken[0]} ${JSON.stringify(broken[1].slice(0, 30))}`, pairs: [broken, ...fields, ...noise] }
  })
}

function pageRoutes(): PageRoute[] {
  const wrongPassword = fc.oneof(fc.constant(''), formValue, fc.constantFrom('wrong password', 'fuzz password 0')).map((v) => ['sudo_password', v] as [string, string])
  const sudo = () => fc.option(wrongPassword, { nil: undefined }).map((p) => ({ how: p ? 'wrong sudo password' : 'no sudo password', pairs: pairs(p) }))
  return [
    { method: 'GET', path: '/console' },
    { method: 'GET', path: '/console/signup' },
    { method: 'GET', path: '/console/apps/new' },
    { method: 'GET', path: '/console/apps/:app' },
    { method: 'GET', path: '/console/apps/:app/delete' },
    { method: 'GET', path: '/console/apps/:app/failures' },
    { method: 'GET', path: '/settings/connected_apps' },
    { method: 'GET', path: '/settings/sessions' },
    { method: 'GET', path: '/settings/password' },
    {
      method: 'POST',
      path: '/console/sign-in',
      // Never a right password: a sign-in that works would start a session (a row).
      fields: (f) =>
        fc.tuple(fc.oneof(fc.constantFrom(...f.screenNames), formValue), fc.oneof(formValue, fc.constant('fuzz password 0')), fc.option(fc.oneof(fc.constantFrom('/console', '/settings/password', '//evil.example', 'https://evil.example', '/console/apps/1'), formValue), { nil: undefined })).map(([username, password, next]) => ({
          how: 'sign-in with a wrong password',
          pairs: pairs(['username', username], ['password', password], next === undefined ? undefined : ['next', next]),
        })),
    },
    { method: 'POST', path: '/console/sign-out', destructive: true },
    {
      method: 'POST',
      path: '/console/signup',
      fields: (f) =>
        fc
          .oneof(
            fc.tuple(fc.oneof(withControl, fc.constantFrom('', 'two words', 'a'.repeat(16), 'ümlaut', f.screenNames[0]!, f.screenNames[1]!.toUpperCase())), fc.constant('a good password')).map(([s, p]) => ({ how: `sign-up: screen name ${JSON.stringify(s.slice(0, 20))}`, s, p, n: 'Name' })),
            fc.tuple(fc.constantFrom('short', '', '1234567', 'x'.repeat(1025)), fc.constant('fuzz_signup')).map(([p, s]) => ({ how: 'sign-up: password refused', s, p, n: 'Name' })),
            fc.tuple(fc.oneof(withControl, fc.constant('x'.repeat(51))), fc.constant('fuzz_signup')).map(([n, s]) => ({ how: 'sign-up: name refused', s, p: 'a good password', n })),
          )
          .chain((c) =>
            fc.array(fc.tuple(fc.constantFrom('screen_name', 'password', 'name', 'x'), formValue), { maxLength: 2 }).map((noise) => ({
              how: c.how,
              pairs: [['screen_name', c.s], ['name', c.n], ['password', c.p], ...noise] as Array<[string, string]>,
            })),
          ),
    },
    { method: 'POST', path: '/console/apps', fields: () => appForm() },
    { method: 'POST', path: '/console/apps/:app', fields: () => appForm() },
    { method: 'POST', path: '/console/apps/:app/suspend', destructive: true },
    { method: 'POST', path: '/console/apps/:app/unsuspend', destructive: true },
    { method: 'POST', path: '/console/apps/:app/delete', fields: sudo },
    {
      method: 'POST',
      path: '/console/apps/:app/keys',
      fields: () =>
        fc.tuple(fc.constantFrom('0', '-1', 'abc', '604801', '99999999', '1.5', ' 60', '60\u0000', ''), wrongPassword).map(([grace, p]) => ({ how: `keys with grace ${JSON.stringify(grace)}`, pairs: pairs(['grace', grace], p) })),
      // With an empty grace a right password would rotate; the password is never right.
    },
    { method: 'POST', path: '/console/apps/:app/owner-token', fields: sudo },
    { method: 'POST', path: '/console/apps/:app/bearer-token', fields: sudo },
    // The people hold no access tokens and no app a bearer token: invalidating finds nothing (404).
    { method: 'POST', path: '/console/apps/:app/owner-token/invalidate' },
    { method: 'POST', path: '/console/apps/:app/bearer-token/invalidate' },
    { method: 'POST', path: '/console/sudo', fields: () => fc.tuple(wrongPassword, fc.option(fc.oneof(fc.constant('/console'), formValue), { nil: undefined })).map(([p, next]) => ({ how: 'sudo with a wrong password', pairs: pairs(p, next === undefined ? undefined : ['next', next]) })) },
    {
      method: 'POST',
      path: '/settings/sessions/end',
      fields: () => fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{32}$/), formValue).map((id) => ({ how: 'end a session that is none of theirs', pairs: [['session', id]] as Array<[string, string]> })),
    },
    // Ending the other sessions is audited even when there are none: only ever sent without a session.
    { method: 'POST', path: '/settings/sessions/end-others', destructive: true },
    {
      method: 'POST',
      path: '/settings/password',
      fields: () =>
        fc.tuple(fc.oneof(formValue, fc.constant('fuzz password 0')), fc.oneof(formValue, fc.constant('a new good password'))).map(([current, next]) => ({ how: 'password change with a wrong current password', pairs: [['current_password', current], ['new_password', next]] as Array<[string, string]> })),
    },
    {
      method: 'POST',
      path: '/settings/connected_apps/revoke',
      fields: (f) => fc.oneof(fc.constantFrom(...f.appIds), oddId, nonexistentId(f)).map((id) => ({ how: 'revoke an app never authorized', pairs: [['revoke', id]] as Array<[string, string]> })),
    },
  ]
}

function consentAttempts(f: Fixture, address: fc.Arbitrary<string>): fc.Arbitrary<Attempt> {
  const token = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...f.requestTokens) },
    { weight: 2, arbitrary: fc.oneof(fc.constantFrom('', 'unknown', 'x'.repeat(3000)), badEscape, fc.string({ maxLength: 30 }).map(encodeURIComponent)) },
  )
  const query = fc
    .tuple(token, fc.option(fc.oneof(fc.constantFrom('true', '1', 'TRUE', 'no', ''), badEscape), { nil: undefined }), fc.option(fc.oneof(formValue.map(encodeLoose), badEscape), { nil: undefined }), fc.boolean())
    .map(([t, force, name, repeat]) =>
      [`oauth_token=${t}`, force === undefined ? '' : `force_login=${force}`, name === undefined ? '' : `screen_name=${name}`, repeat ? `oauth_token=${f.requestTokens[0]}` : ''].filter(Boolean).join('&'),
    )
  const flow = fc.constantFrom('/oauth/authorize', '/oauth/authenticate')
  const get = fc.tuple(flow, query, address, fc.constantFrom<'visitor' | 'person' | 'none'>('visitor', 'person', 'none')).map(([path, q, from, who]): Attempt => {
    const cookie = who === 'visitor' ? f.visitor.cookie : who === 'person' ? f.people[0]!.cookie : undefined
    return { aim: `GET ${path}`, how: `${who}: ?${q.slice(0, 60)}`, method: 'GET', target: `${path}?${q}`, headers: [...httpsHeaders(from), ...(cookie ? [['Cookie', cookie] as [string, string]] : [])], authenticated: who !== 'none', mustRefuse: false, routedPage: true }
  })
  // Posted as a visitor who has not signed in: `allow` without credentials is asked to sign in, with
  // wrong ones refused; `cancel` only for tokens that are no request's (it would deny one); `switch` signs out no one.
  const post = fc
    .tuple(
      flow,
      address,
      fc.constantFrom('allow', 'cancel', 'switch', '', 'ALLOW', 'delete', 'allow\u0000'),
      token,
      fc.option(fc.tuple(fc.oneof(fc.constantFrom(...f.screenNames), formValue), formValue), { nil: undefined }),
      fc.constantFrom('right', 'wrong', 'missing', 'repeated-wrong-first'),
      fc.boolean(),
    )
    .map(([path, from, action, t, credentials, csrf, force]): Attempt => {
      const isRealToken = f.requestTokens.includes(t)
      const safeAction = action === 'cancel' && isRealToken ? 'switch' : action
      const csrfPairs: Array<[string, string]> = csrf === 'right' ? [['csrf_token', f.visitor.csrf]] : csrf === 'wrong' ? [['csrf_token', 'x'.repeat(32)]] : csrf === 'repeated-wrong-first' ? [['csrf_token', 'y'.repeat(32)], ['csrf_token', f.visitor.csrf]] : []
      const fields: Array<[string, string]> = [...csrfPairs, ['oauth_token', t], ['action', safeAction], ...(credentials ? ([['username', credentials[0]], ['password', credentials[1]]] as Array<[string, string]>) : []), ...(force ? ([['force_login', 'true']] as Array<[string, string]>) : [])]
      return {
        aim: `POST ${path}`,
        how: `visitor, csrf ${csrf}, action ${JSON.stringify(safeAction)}${credentials ? ', wrong credentials' : ''}`,
        method: 'POST',
        target: path,
        headers: [...httpsHeaders(from), ['Cookie', f.visitor.cookie], ['Content-Type', 'application/x-www-form-urlencoded']],
        body: Buffer.from(formEncodeLoose(fields)),
        authenticated: csrf === 'right',
        mustRefuse: false,
        routedPage: true,
      }
    })
  return fc.oneof(get, post)
}

/** Form encoding of the fields as given (URLSearchParams would turn a lone surrogate into U+FFFD). */
const formEncodeLoose = (fields: Array<[string, string]>): string => fields.map(([k, v]) => `${encodeLoose(k)}=${encodeLoose(v)}`).join('&')

function pageAttempts(f: Fixture): fc.Arbitrary<Attempt> {
  const routes = pageRoutes()
  const address = fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...ADDRESSES) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_FORWARDED_FOR) })
  const auth = fc.oneof(
    { weight: 10, arbitrary: fc.constant<Auth>('person') },
    { weight: 2, arbitrary: fc.constantFrom<Auth>('visitor', 'none', 'forged', 'wrong-csrf', 'http-cookie') },
  )
  const bodyMischief = fc.oneof(
    { weight: 8, arbitrary: fc.constant('none') },
    { weight: 1, arbitrary: fc.constantFrom('invalid-utf8-raw', 'invalid-utf8-escaped', 'bad-escape', 'huge', 'json', 'nul-separators', 'content-type') },
  )
  const routed = fc
    .record({ route: fc.constantFrom(...routes), auth, personIndex: fc.nat({ max: 2 }), from: address, idPick: fc.nat({ max: 99 }), mischief: bodyMischief, queryJunk: fc.option(fc.oneof(badEscape.map((e) => `x=${e}`), fc.string({ maxLength: 20 }).map(encodeURIComponent), fc.constant('csrf_token=x')), { freq: 8, nil: undefined }) })
    .chain(({ route, auth: drawn, personIndex, from, idPick, mischief, queryJunk }) => {
      const person = f.people[personIndex]!
      // Signing out, or ending the other sessions, with the right CSRF value would work: those get a wrong one.
      const auth: Auth = route.destructive && drawn === 'person' && !route.path.includes(':app') ? 'wrong-csrf' : drawn
      const isLive = auth === 'person' || auth === 'wrong-csrf'
      const mayTouchOwn = !(route.destructive && auth === 'person')
      const id: fc.Arbitrary<{ value: string; own: boolean }> =
        idPick < 50 && mayTouchOwn
          ? fc.constantFrom(...person.ownAppIds).map((value) => ({ value, own: true }))
          : idPick < 65
            ? fc.constant({ value: person.otherAppId, own: false })
            : fc.oneof(nonexistentId(f), oddId).map((value) => ({ value, own: false }))
      const fields = route.fields ? route.fields(f, person) : fc.constant({ how: 'no fields', pairs: [] as Array<[string, string]> })
      return fc.tuple(id, fields, invalidUtf8, badEscape).map(([appId, form, bytes, escape]): Attempt => {
        const path = route.path.replace(':app', appId.value)
        // The path still names the route (an id of plain characters, within the router's 100 for a
        // parameter): a refusal is the pages' HTML. Others are refused by the router, before any page.
        const routedPage = !route.path.includes(':app') || /^[A-Za-z0-9._~-]{1,100}$/.test(appId.value)
        const target = `${path}${queryJunk === undefined ? '' : `?${queryJunk}`}`
        const cookie =
          auth === 'person' || auth === 'wrong-csrf'
            ? person.cookie
            : auth === 'visitor'
              ? f.visitor.cookie
              : auth === 'forged'
                ? `${person.cookie.slice(0, -6)}${person.cookie.at(-6) === 'A' ? 'B' : 'A'}${person.cookie.slice(-5)}`
                : auth === 'http-cookie'
                  ? person.cookie.replace('__Host-', '')
                  : undefined
        const headers: Array<[string, string]> = [...httpsHeaders(from), ...(cookie ? [['Cookie', cookie] as [string, string]] : [])]
        const how = [`${auth}${isLive ? ` @${person.screenName}` : ''}`, form.how, appId.own ? 'own app' : route.path.includes(':app') ? `app ${appId.value.slice(0, 30)}` : '', mischief === 'none' ? '' : mischief, queryJunk ? `query ${queryJunk.slice(0, 30)}` : ''].filter(Boolean).join('; ')
        if (route.method === 'GET') {
          return { aim: `GET ${route.path}`, how, method: 'GET', target, headers, authenticated: isLive, mustRefuse: false, routedPage }
        }
        const csrf: Array<[string, string]> = auth === 'wrong-csrf' ? [['csrf_token', 'z'.repeat(32)], ['csrf_token', person.csrf]] : auth === 'person' ? [['csrf_token', person.csrf]] : auth === 'visitor' ? [['csrf_token', f.visitor.csrf]] : [['csrf_token', person.csrf]]
        let body = Buffer.from(formEncodeLoose([...csrf, ...form.pairs]))
        let contentType = 'application/x-www-form-urlencoded'
        if (mischief === 'invalid-utf8-raw') body = Buffer.concat([body, Buffer.from('&name='), bytes, Buffer.from('&description='), bytes])
        if (mischief === 'invalid-utf8-escaped') body = Buffer.concat([body, Buffer.from(`&name=${percentOf(bytes)}`)])
        if (mischief === 'bad-escape') body = Buffer.concat([body, Buffer.from(`&name=${escape}`)])
        if (mischief === 'huge') body = Buffer.concat([body, Buffer.from(`&description=${'d'.repeat(70_000)}`)])
        if (mischief === 'json') {
          body = Buffer.from(JSON.stringify(Object.fromEntries([...csrf, ...form.pairs])))
          contentType = 'application/json'
        }
        if (mischief === 'nul-separators') body = Buffer.from(body.toString('latin1').replaceAll('&', '\u0000'), 'latin1')
        if (mischief === 'content-type') contentType = 'multipart/form-data; boundary=----x'
        return {
          aim: `POST ${route.path}`,
          how,
          method: 'POST',
          target,
          headers: [...headers, ['Content-Type', contentType]],
          body,
          authenticated: isLive,
          // A write as someone signed in, with a form refused by construction: any 2xx would be a change.
          mustRefuse: false,
          routedPage,
        }
      })
    })

  const odd: fc.Arbitrary<Attempt> = fc.oneof(
    fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'), fc.constantFrom('/console/', '/CONSOLE', '/console//apps', '/console/apps', '/console/apps/1/x', '/console/sign-in', '/console/sign-out', '/settings', '/settings/password/', '/settings/sessions/end', '/oauth/authorize', '/console/apps/new/x', '/console/%2e%2e/admin', '/console/..%2F..%2Fetc'), address).map(([method, target, from]): Attempt => ({
      aim: 'odd path',
      how: `${method} ${target}`,
      method,
      target,
      headers: [...httpsHeaders(from), ['Cookie', f.people[0]!.cookie]],
      // A wrong CSRF value: with the right one, POST /console/sign-out would sign the person out.
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.from(`csrf_token=${'z'.repeat(32)}`) }),
      authenticated: true,
      mustRefuse: false,
    })),
    fc.tuple(invalidUtf8, fc.constantFrom('/console/apps/', '/oauth/authorize?oauth_token=', '/console?x=', '/settings/'), address).map(([bytes, prefix, from]): Attempt => ({
      aim: 'raw',
      how: 'invalid UTF-8 bytes in the path',
      method: 'GET',
      target: `${prefix}${bytes.toString('latin1')}`,
      headers: [...httpsHeaders(from), ['Cookie', f.people[0]!.cookie]],
      authenticated: true,
      mustRefuse: false,
    })),
    // Plain http in production, a cookie with control characters, a huge cookie, many cookies.
    fc.tuple(fc.constantFrom('/console', '/settings/password', '/oauth/authorize?oauth_token=x'), fc.constantFrom<Array<[string, string]>>(
      [['X-Forwarded-Proto', 'http']],
      [['X-Forwarded-Proto', 'https'], ['Cookie', `__Host-latchkey_session=${'a'.repeat(10_000)}`]],
      [['X-Forwarded-Proto', 'https'], ['Cookie', '__Host-latchkey_session=\u0001\u00ff']],
      [['X-Forwarded-Proto', 'https'], ['Cookie', `${f.people[0]!.cookie}; ${f.people[1]!.cookie}`]],
      [['X-Forwarded-Proto', 'https'], ['Cookie', f.people[0]!.cookie], ['Cookie', f.people[1]!.cookie]],
      [['X-Forwarded-Proto', 'https'], ['Cookie', '=; ;;; a=b=c; __Host-latchkey_session']],
      [['X-Forwarded-Proto', 'https, http']],
      [['X-Forwarded-Proto', 'https'], ['X-Forwarded-Host', 'evil.example\u0000']],
    )).map(([target, extra]): Attempt => ({ aim: 'odd headers', how: `headers ${extra.map(([n, v]) => `${n}: ${v.slice(0, 30)}`).join(', ')}`, method: 'GET', target, headers: [['X-Forwarded-For', ADDRESSES[0]!], ...extra], authenticated: false, mustRefuse: false, routedPage: true })),
    fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 80 }).map((b) => Buffer.concat([Buffer.from(b), Buffer.from('\r\n\r\n')])), fc.constantFrom(Buffer.from('POST /console/sign-in HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nab'), Buffer.from(`GET /console HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))).map((raw): Attempt => ({
      aim: 'raw',
      how: `raw bytes ${JSON.stringify(raw.toString('latin1').slice(0, 30))}`,
      method: 'RAW',
      target: '',
      headers: [],
      raw,
      authenticated: false,
      mustRefuse: false,
    })),
  )
  return fc.oneof({ weight: 14, arbitrary: routed }, { weight: 3, arbitrary: consentAttempts(f, address) }, { weight: 1, arbitrary: odd })
}

// ---------------------------------------------------------------------------------------------
// The runs.

interface Tally {
  sent: number
  authenticated: number
  byStatus: Map<number, number>
  byAim: Map<string, number>
  failures: string[]
  /** Batches after which a table had changed, with the writes of that batch. */
  writes: string[]
}

async function run(f: Fixture, label: string, port: number, attempts: fc.Arbitrary<Attempt>, count: number, check: (a: Attempt, answer: Answer) => string[]): Promise<Tally> {
  const tally: Tally = { sent: 0, authenticated: 0, byStatus: new Map(), byAim: new Map(), failures: [], writes: [] }
  let baseline = await snapshot(f.server.dbPath)
  let batch: string[] = []
  const started = Date.now()
  await fc.assert(
    fc.asyncProperty(attempts, async (attempt) => {
      let answer: Answer
      tally.sent++
      try {
        answer = await exchange(port, requestBytes(attempt, port))
      } catch (error) {
        // Bytes that hold no request may be dropped without an answer; anything else must be answered.
        if (!(attempt.raw && /no HTTP answer \(0 bytes\)/.test((error as Error).message))) tally.failures.push(`no answer (${(error as Error).message}) to ${attempt.aim}: ${attempt.how}`)
        return
      }
      if (attempt.authenticated) tally.authenticated++
      tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1)
      tally.byAim.set(attempt.aim, (tally.byAim.get(attempt.aim) ?? 0) + 1)
      const mistakes = check(attempt, answer)
      if (mistakes.length > 0 && tally.failures.length < 200) {
        const body = attempt.body ? ` body ${JSON.stringify(attempt.body.subarray(0, 160).toString('latin1'))}` : ''
        tally.failures.push(`${mistakes.join(', ')} — ${attempt.method} ${attempt.target.slice(0, 120)}${body} (${attempt.aim}: ${attempt.how}) → ${answer.status} ${answer.body.slice(0, 200)}`)
      }
      // The requests that could have written: not a GET, and not refused.
      if (attempt.method !== 'GET' && answer.status < 400) {
        const body = attempt.body ? ` body ${JSON.stringify(attempt.body.subarray(0, 300).toString('latin1'))}` : ''
        batch.push(`${attempt.method} ${attempt.target.slice(0, 80)}${body} (${attempt.how}) → ${answer.status}`)
      }
      if (tally.sent % BATCH === 0) {
        const now = await snapshot(f.server.dbPath)
        const changed = changedTables(baseline, now)
        if (changed.length > 0) tally.writes.push(`${changed.join(', ')} changed in batch ${tally.sent / BATCH}; its requests not refused:\n  ${batch.join('\n  ')}`)
        baseline = now
        batch = []
      }
    }),
    { numRuns: count, seed: SEED },
  )
  const changed = changedTables(baseline, await snapshot(f.server.dbPath))
  if (changed.length > 0) tally.writes.push(`${changed.join(', ')} changed in the last batch; its requests not refused:\n  ${batch.join('\n  ')}`)
  for (const line of [...tally.failures, ...tally.writes]) console.log(`✗ ${label}: ${line}`)
  const statuses = [...tally.byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`)
  console.log(`${label}: seed ${SEED}, ${tally.sent} requests (${tally.authenticated} with a live token or session) in ${((Date.now() - started) / 1000).toFixed(1)} s; answers ${statuses.join(', ')}`)
  return tally
}

describe('hostile admin API and console requests (fuzz)', () => {
  let f: Fixture
  before(async () => {
    f = await setUp()
  })
  after(() => f?.server.close())

  test('the admin API document lists only operations the fuzzer knows', () => {
    const unknown = f.operations.map((op) => op.id).filter((id) => !KNOWN_OPERATIONS.has(id))
    assert.deepEqual(unknown, [], 'add these operations to the fuzzer')
    assert.ok(f.operations.length >= KNOWN_OPERATIONS.size)
  })

  test(`${ADMIN_RUNS} hostile admin API requests: no 5xx, problem documents, no stack trace, every write refused, nothing written`, async () => {
    const before = await failedSignIns(f.server.dbPath)
    const tally = await run(f, 'admin API', f.adminPort, adminAttempts(f), ADMIN_RUNS, checkAdmin)
    assert.deepEqual({ failures: tally.failures, writes: tally.writes }, { failures: [], writes: [] }, 'answers that are not as they must be; batches after which a row had been written')
    assert.equal(await failedSignIns(f.server.dbPath), before, 'the admin API audits no sign-in')
    assert.equal(tally.sent, ADMIN_RUNS)
    // With enough requests, every operation was reached (by a live token, mostly).
    if (ADMIN_RUNS >= 40 * KNOWN_OPERATIONS.size) {
      const missed = [...KNOWN_OPERATIONS].filter((id) => !tally.byAim.has(id))
      assert.deepEqual(missed, [], 'operations never reached')
    }
    assert.ok(tally.sent === 0 || tally.authenticated > tally.sent / 2, 'most requests reach the validators')
    const ready = await exchange(f.publicPort, requestBytes({ aim: 'ready', how: '', method: 'GET', target: '/readyz', headers: [], authenticated: false, mustRefuse: false }, f.publicPort))
    assert.equal(ready.status, 200)
  })

  test(`${PAGE_RUNS} hostile page requests: no 5xx, HTML error pages, no stack trace, nothing written but failed sign-ins in the audit trail`, async () => {
    const before = await failedSignIns(f.server.dbPath)
    const tally = await run(f, 'pages', f.publicPort, pageAttempts(f), PAGE_RUNS, checkPage)
    console.log(`pages: ${(await failedSignIns(f.server.dbPath)) - before} wrong passwords audited as sign_in.failed`)
    assert.deepEqual({ failures: tally.failures, writes: tally.writes }, { failures: [], writes: [] }, 'answers that are not as they must be; batches after which a row had been written')
    assert.equal(tally.sent, PAGE_RUNS)
    // With enough requests, every page route and both consent flows were aimed at.
    const aims = [...pageRoutes().map((r) => `${r.method} ${r.path}`), ...['GET', 'POST'].flatMap((m) => [`${m} /oauth/authorize`, `${m} /oauth/authenticate`])]
    if (PAGE_RUNS >= 40 * aims.length) assert.deepEqual(aims.filter((aim) => !tally.byAim.has(aim)), [], 'pages never reached')
    assert.ok(tally.sent === 0 || tally.authenticated > tally.sent / 3, 'many requests reach the validators')
    // The sessions still work: nothing the fuzzer sent signed anyone out.
    for (const person of f.people) {
      const home = await pageGet(f.publicPort, '/console', person.cookie)
      assert.equal(home.status, 200)
      assert.ok(home.body.includes(`@${person.screenName}`), `@${person.screenName} is still signed in`)
    }
  })
})
