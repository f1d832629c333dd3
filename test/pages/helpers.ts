import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { DomainDeps } from '../../src/domain/deps.ts'
import { randomAlphanumeric, randomBase64Url } from '../../src/protocol/secrets.ts'
import type { AppRecord, RequestTokenRecord, UserRecord } from '../../src/storage/records.ts'
import { makeUser } from '../helpers/fixtures.ts'

export const SESSION_COOKIE = 'latchkey_session'

/** A request token as POST /oauth/request_token would store it (callback: the app's first URL). */
export async function makeRequestToken(
  domain: DomainDeps,
  app: AppRecord,
  overrides: Partial<RequestTokenRecord> = {},
): Promise<RequestTokenRecord> {
  const nowMs = domain.clock.nowMs()
  const record: RequestTokenRecord = {
    token: randomBase64Url(20),
    secret: randomAlphanumeric(32),
    appId: app.id,
    callback: app.callbackUrls[0] ?? 'oob',
    accessLevel: app.accessLevel,
    status: 'issued',
    userId: null,
    verifierFailures: 0,
    createdAtMs: nowMs,
    expiresAtMs: nowMs + domain.settings.requestTokenTtlSeconds * 1000,
    ...overrides,
  }
  await domain.stores.requestTokens.create(record)
  return record
}

export interface Browser {
  /** The session cookie's (signed) value, as a browser would keep it. */
  cookie: string | undefined
  address: string
}

export const newBrowser = (address = '127.0.0.1'): Browser => ({ cookie: undefined, address })

function keepCookie(browser: Browser, response: LightMyRequestResponse): void {
  const set = response.cookies.find((c) => c.name === SESSION_COOKIE)
  if (set) browser.cookie = set.value
}

export async function visit(app: FastifyInstance, browser: Browser, url: string): Promise<LightMyRequestResponse> {
  const response = await app.inject({
    method: 'GET',
    url,
    remoteAddress: browser.address,
    cookies: browser.cookie ? { [SESSION_COOKIE]: browser.cookie } : {},
  })
  keepCookie(browser, response)
  return response
}

export async function submit(
  app: FastifyInstance,
  browser: Browser,
  path: string,
  fields: Record<string, string> | Array<[string, string]>,
): Promise<LightMyRequestResponse> {
  const response = await app.inject({
    method: 'POST',
    url: path,
    remoteAddress: browser.address,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    cookies: browser.cookie ? { [SESSION_COOKIE]: browser.cookie } : {},
    payload: new URLSearchParams(fields).toString(),
  })
  keepCookie(browser, response)
  return response
}

/** The hidden csrf_token of the page's form. */
export function csrfOf(page: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(page)
  assert.ok(match?.[1], 'the page has a csrf_token field')
  return match[1]
}

/** A button of the consent form. */
export type ConsentAction = 'allow' | 'cancel' | 'switch'

/**
 * Opens the consent page of this request token, as a browser would, and presses a button with these
 * extra fields (a username and password to sign in on the way). The page must load (200).
 */
export async function openAndPress(
  app: FastifyInstance,
  browser: Browser,
  path: string,
  token: string,
  action: ConsentAction,
  fields: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const page = await visit(app, browser, `${path}?oauth_token=${encodeURIComponent(token)}`)
  assert.equal(page.statusCode, 200)
  return submit(app, browser, path, { csrf_token: csrfOf(page.body), oauth_token: token, action, ...fields })
}

/** Opens the consent page and presses "Authorize app", signing in with the given credentials if any. */
export function openAndAllow(
  app: FastifyInstance,
  browser: Browser,
  path: string,
  token: string,
  credentials?: { username: string; password: string },
): Promise<LightMyRequestResponse> {
  return openAndPress(app, browser, path, token, 'allow', credentials)
}

/**
 * The preamble of many page tests: a new person signs in on the consent page of a request token of
 * `app` and allows it, in a new browser (at `address`), which keeps the session. The approval
 * must succeed (a redirect, or the PIN page of an oob app).
 */
export async function signInAndAllow(
  t: { app: FastifyInstance; domain: DomainDeps },
  app: AppRecord,
  address?: string,
): Promise<{ user: UserRecord; password: string; browser: Browser; response: LightMyRequestResponse }> {
  const { user, password } = await makeUser(t.domain)
  const browser = newBrowser(address)
  const requestToken = await makeRequestToken(t.domain, app)
  const response = await openAndAllow(t.app, browser, '/oauth/authorize', requestToken.token, { username: user.screenName, password })
  assert.ok(response.statusCode === 302 || response.statusCode === 200, `signing in and allowing answered ${response.statusCode}`)
  return { user, password, browser, response }
}

/** The text of the element with this id (no nested markup expected). */
export function textOfId(page: string, id: string): string | undefined {
  return new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(page)?.[1]
}
