import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import type { DomainDeps } from '../../src/domain/deps.ts'
import { randomAlphanumeric, randomBase64Url } from '../../src/protocol/secrets.ts'
import type { AppRecord, RequestTokenRecord, UserRecord } from '../../src/storage/records.ts'
import { Browser, csrfOf, textOf, type PageAnswer } from './browser.ts'
import { makeUser } from './fixtures.ts'

// The consent step of OAuth 1.0a as a person does it in a browser (test/helpers/browser.ts): open
// GET /oauth/authorize?oauth_token=…, sign in on the page if asked, press a button (`action=allow`,
// `cancel` or `switch`), and read where that leads. Real-browser tests of the same pages (Playwright)
// live in test/e2e/browser.

/** A request token as POST /oauth/request_token would store it (callback: the app's first URL). */
export async function makeRequestToken(domain: DomainDeps, app: AppRecord, overrides: Partial<RequestTokenRecord> = {}): Promise<RequestTokenRecord> {
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

/** A button of the consent form. */
export type ConsentAction = 'allow' | 'cancel' | 'switch'

/**
 * Opens the consent page of this request token, as a browser would, and presses a button with these
 * extra fields (a username and password to sign in on the way). The page must load (200).
 */
export async function openAndPress(browser: Browser, path: string, token: string, action: ConsentAction, fields: Record<string, string> = {}): Promise<PageAnswer> {
  const page = await browser.get(`${path}?oauth_token=${encodeURIComponent(token)}`)
  assert.equal(page.statusCode, 200)
  return browser.post(path, { csrf_token: csrfOf(page.body), oauth_token: token, action, ...fields })
}

/** Opens the consent page and presses "Authorize app", signing in with the given credentials if any. */
export function openAndAllow(browser: Browser, path: string, token: string, credentials?: { username: string; password: string }): Promise<PageAnswer> {
  return openAndPress(browser, path, token, 'allow', credentials)
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
): Promise<{ user: UserRecord; password: string; browser: Browser; response: PageAnswer }> {
  const { user, password } = await makeUser(t.domain)
  const browser = new Browser(t.app, address)
  const requestToken = await makeRequestToken(t.domain, app)
  const response = await openAndAllow(browser, '/oauth/authorize', requestToken.token, { username: user.screenName, password })
  assert.ok(response.statusCode === 302 || response.statusCode === 200, `signing in and allowing answered ${response.statusCode}`)
  return { user, password, browser, response }
}

export type ConsentOutcome =
  /** A redirect (the web flow's callback, or Cancel's denied=…): the Location and its query. */
  | { kind: 'redirect'; status: number; location: string; query: URLSearchParams }
  /** The oob flow's PIN page: the digits inside the element with id="oauth_pin". */
  | { kind: 'pin'; pin: string; page: PageAnswer }
  /** Any other page (the oob denied page, a sign-in failure, an error page). */
  | { kind: 'page'; page: PageAnswer }

/** What a page led to: a redirect, the PIN page, or another page. */
export function outcomeOf(answer: PageAnswer): ConsentOutcome {
  const location = answer.headers.location
  if (answer.statusCode >= 300 && answer.statusCode < 400 && typeof location === 'string') {
    return { kind: 'redirect', status: answer.statusCode, location, query: new URL(location, answer.url).searchParams }
  }
  const pin = textOf(answer.body, 'oauth_pin')
  if (answer.statusCode === 200 && pin !== undefined) return { kind: 'pin', pin, page: answer }
  return { kind: 'page', page: answer }
}

/**
 * A person opening the authorization URL the app sent them to (an absolute URL: over the network),
 * signing in with `username` and `password` on the page, and pressing "Authorize app" (or
 * "Cancel"). Throws when the page itself does not open with 200.
 */
export async function consentInBrowser(
  authorizationUrl: string,
  person: { username: string; password: string },
  options: { action?: 'allow' | 'cancel'; browser?: Browser } = {},
): Promise<ConsentOutcome> {
  const browser = options.browser ?? new Browser()
  const page = await browser.get(authorizationUrl)
  if (page.statusCode !== 200) throw new Error(`the consent page answered ${page.statusCode}: ${page.body.slice(0, 300)}`)
  const answer = await browser.submit(page, { username: person.username, password: person.password }, { name: 'action', value: options.action ?? 'allow' })
  return outcomeOf(answer)
}
