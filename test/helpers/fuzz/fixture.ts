import assert from 'node:assert/strict'
import { after, before } from 'node:test'
import fc from 'fast-check'
import { createAdminToken, revokeAdminToken } from '../../../src/domain/admin/admin-tokens.ts'
import { startAdminTestServer, type AdminTestServer } from '../admin.ts'
import { csrfOf } from '../browser.ts'
import { signRequest } from '../oauth1-client.ts'
import { testClock } from '../test-app.ts'
import { exchange, requestBytes, type Answer } from './raw-exchange.ts'

// What the fuzzes of the admin API and the pages aim at: one production-mode server, its admin
// listener, people signed in, apps, request tokens.

export interface Identity {
  cookie: string
  csrf: string
}

export interface Fixture {
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
export const ADDRESSES = Array.from({ length: 12 }, (_, i) => `10.77.0.${i + 1}`)
export const ODD_FORWARDED_FOR = ['garbage', '999.1.1.1', '', '1.2.3.4, 5.6.7.8, 9.9.9.9', '::ffff:10.77.0.1', '[::1]', 'unknown', '10.77.0.1\u0000']

export const httpsHeaders = (address: string): Array<[string, string]> => [
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

export async function pageGet(port: number, path: string, cookie?: string): Promise<Answer> {
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
  const csrf = csrfOf(form.body)
  assert.ok(visitorCookie, 'the sign-in page gives a cookie')
  const answer = await pagePost(port, '/console/sign-in', visitorCookie, { csrf_token: csrf, username: screenName, password, next: '/console' })
  assert.equal(answer.status, 302, answer.body)
  const cookie = cookieOf(answer)
  assert.ok(cookie)
  const home = await pageGet(port, '/console', cookie)
  const sessionCsrf = csrfOf(home.body)
  assert.ok(home.body.includes(`@${screenName}`), 'signed in')
  return { cookie, csrf: sessionCsrf }
}

/** Sets the fixture up before the suite's tests and closes its server after; the answer gives it to a test. */
export function fixtureOfSuite(): () => Fixture {
  let f: Fixture | undefined
  before(async () => {
    f = await setUp()
  })
  after(() => f?.server.close())
  return () => {
    if (!f) throw new Error('fixtureOfSuite: read inside a test, after `before` set it up')
    return f
  }
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
  const visitor = { cookie: cookieOf(visitorPage)!, csrf: csrfOf(visitorPage.body) }
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

/** An id that is no record's: numbers that were never issued, a deleted app, and things that are no id at all. */
export const nonexistentId = (f: Fixture) =>
  fc.oneof(
    fc.bigInt({ min: 0n, max: 10n ** 12n }).map(String),
    fc.constantFrom('0', '00000000000000000000', '99999999999999999999', '18446744073709551616', f.deletedAppId, `${f.appIds[0]}0`),
  )
