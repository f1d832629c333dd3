// Issue 19, "tests that must exist", in Chromium: a cookie copied before sign-out, a password change,
// "sign out of all other sessions", an operator's sign-out-everywhere or the account being disabled
// (admin API) is refused afterwards: the page asks to sign in. On the PostgreSQL pass the browser
// goes back and forth between two instances sharing the PostgreSQL schema and the Redis prefix.
// Then the session list with two browser contexts, and the fresh-password (sudo) rule with its throttle.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { composeApp } from '../../../src/composition/apps.ts'
import { createDomainDeps } from '../../../src/composition/root.ts'
import { openStorage } from '../../../src/storage/open-stores.ts'
import type { Storage } from '../../../src/storage/types.ts'
import { startAdminTestServer, type AdminTestServer } from '../../helpers/admin.ts'
import { runCli } from '../../helpers/cli.ts'
import { testKeyring } from '../../helpers/keys.ts'
import { testClock, testDomainSettings, type TestSettings } from '../../helpers/test-app.ts'
import { VIEWPORT, assertAccessible, launchBrowser, mainText, open, skipReason, submitWith } from './browser.ts'

const PASSWORD = 'correct horse battery'
const COOKIE_SECRET = 'test-cookie-secret-0123456789abcdef'
let counter = 0

interface Instances {
  browser: Browser
  server: AdminTestServer
  clock: ReturnType<typeof testClock>
  /** The URLs the browser alternates between: two instances on PostgreSQL + Redis, the one server on SQLite. */
  urls: [string, string]
  close(): Promise<void>
}

/** A second instance of the service on the server's own database and Redis prefix (the PostgreSQL pass). */
async function secondInstance(server: AdminTestServer, clock: ReturnType<typeof testClock>, settings: TestSettings): Promise<{ url: string; close(): Promise<void> }> {
  const redis = server.redis!
  const storage: Storage = await openStorage({ keyring: testKeyring(), databaseUrl: server.dbPath, redisUrl: redis.url, redisKeyPrefix: redis.keyPrefix })
  const domain = createDomainDeps(storage, testDomainSettings(settings), clock)
  const app: FastifyInstance = await composeApp({
    domain,
    logger: pino({ level: 'silent' }),
    http: { dev: true, publicUrl: undefined, trustProxy: [], cookieSecret: COOKIE_SECRET, allowSignup: true },
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    async close() {
      await app.close()
      await storage.runtime.close()
    },
  }
}

async function startInstances(settings: TestSettings = {}): Promise<Instances> {
  const browser = await launchBrowser()
  const clock = testClock()
  try {
    const server = await startAdminTestServer({ clock, settings, http: { allowSignup: true, cookieSecret: COOKIE_SECRET } })
    const second = server.redis ? await secondInstance(server, clock, settings) : undefined
    return {
      browser,
      server,
      clock,
      urls: [server.url, second?.url ?? server.url],
      async close() {
        await browser.close()
        await second?.close()
        await server.close()
      },
    }
  } catch (error) {
    await browser.close()
    throw error
  }
}

async function newContext(browser: Browser, userAgent?: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US', ...(userAgent ? { userAgent } : {}) })
  context.setDefaultTimeout(15_000)
  return context
}

/** A new developer signs up at /console/signup in a new context: their page, screen name and context. */
async function signUp(env: Instances, url: string, userAgent?: string): Promise<{ page: Page; handle: string; context: BrowserContext }> {
  const context = await newContext(env.browser, userAgent)
  const page = await context.newPage()
  const handle = `s${Date.now() % 100_000}_${++counter}`
  await open(page, `${url}/console/signup`)
  await page.fill('input[name="screen_name"]', handle)
  await page.fill('input[name="name"]', `Tester ${counter}`)
  await page.fill('input[name="password"]', PASSWORD)
  await submitWith(page, '#sign_up')
  assert.equal(new URL(page.url()).pathname, '/console')
  return { page, handle, context }
}

/** The same person signing in with their password in another browser. */
async function signIn(env: Instances, url: string, handle: string, userAgent?: string): Promise<Page> {
  const context = await newContext(env.browser, userAgent)
  const page = await context.newPage()
  await open(page, `${url}/console`)
  await page.fill('#username', handle)
  await page.fill('#password', PASSWORD)
  await submitWith(page, '#sign_in')
  assert.match(await mainText(page), new RegExp(`Sign out @${handle}`))
  return page
}

/** Another browser holding a copy of this context's cookies, as a thief would. */
async function copyOf(env: Instances, context: BrowserContext): Promise<Page> {
  const thief = await newContext(env.browser)
  await thief.addCookies(await context.cookies())
  return thief.newPage()
}

/** Opens /console: true when signed in as `handle`, false when it asks to sign in (and nothing of theirs shows). */
async function isSignedIn(page: Page, url: string, handle: string): Promise<boolean> {
  const response = await open(page, `${url}/console`)
  assert.equal(response.status(), 200)
  const text = await mainText(page)
  const asksToSignIn = (await page.locator('#sign_in').count()) === 1 && /Sign in to the developer console/.test(text)
  const signedIn = text.includes(`Sign out @${handle}`)
  assert.notEqual(asksToSignIn, signedIn, `either signed in or asked to sign in: ${text.slice(0, 200)}`)
  return signedIn
}

describe('ended browser sessions stay ended, in Chromium', { skip: skipReason, timeout: 300_000 }, () => {
  let env: Instances
  before(async () => {
    env = await startInstances()
  })
  after(() => env?.close())

  test('a cookie copied before sign-out is refused afterwards', async () => {
    const [one, two] = env.urls
    const { page, handle, context } = await signUp(env, one)
    const copy = await copyOf(env, context)
    assert.equal(await isSignedIn(copy, two, handle), true, 'the copy works while the session lives')
    await submitWith(page, 'nav button[type="submit"]')
    assert.equal(await isSignedIn(page, one, handle), false)
    assert.equal(await isSignedIn(copy, two, handle), false, 'signed out on the server: the copy asks to sign in')
    assert.equal(await isSignedIn(copy, one, handle), false)
  })

  test('a cookie copied before a password change is refused afterwards; the browser that changed it stays signed in', async () => {
    const [one, two] = env.urls
    const { page, handle, context } = await signUp(env, one)
    const copy = await copyOf(env, context)
    assert.equal(await isSignedIn(copy, two, handle), true)
    await open(page, `${two}/settings/password`)
    await assertAccessible(page, 'the password page')
    await page.fill('#current_password', PASSWORD)
    await page.fill('#new_password', 'a new horse battery')
    const changed = await submitWith(page, '#change_password')
    assert.equal(changed.status(), 200)
    assert.match(await mainText(page), /Your password is changed\. Every other session is signed out\./)
    assert.equal(await isSignedIn(copy, one, handle), false, 'the copy asks to sign in')
    assert.equal(await isSignedIn(copy, two, handle), false)
    assert.equal(await isSignedIn(page, one, handle), true, 'the browser that changed it has a new session')
  })

  test('cookies copied before "Sign out of all other sessions" are refused afterwards; the browser that pressed it stays', async () => {
    const [one, two] = env.urls
    const { page: first, handle, context } = await signUp(env, one)
    const copy = await copyOf(env, context)
    const second = await signIn(env, two, handle)
    assert.equal(await isSignedIn(copy, one, handle), true)
    await open(second, `${two}/settings/sessions`)
    await submitWith(second, '#end_other_sessions')
    assert.match(await mainText(second), /1 other session is signed out\./)
    assert.equal(await isSignedIn(copy, one, handle), false, 'the copy asks to sign in')
    assert.equal(await isSignedIn(first, two, handle), false, 'and so does the first browser')
    assert.equal(await isSignedIn(second, one, handle), true, 'the browser that pressed it is still signed in')
  })

  test("a cookie copied before an operator's `latchkey user sign-out-everywhere` is refused afterwards", async () => {
    const [one, two] = env.urls
    const { handle, context } = await signUp(env, one)
    const copy = await copyOf(env, context)
    assert.equal(await isSignedIn(copy, two, handle), true)
    const cli = await runCli(['user', 'sign-out-everywhere', handle, '--json'], { LATCHKEY_DATABASE_URL: env.server.dbPath })
    assert.equal(cli.code, 0, cli.stderr)
    assert.equal(JSON.parse(cli.stdout).sessions_ended, true)
    assert.equal(await isSignedIn(copy, two, handle), false)
    assert.equal(await isSignedIn(copy, one, handle), false)
  })

  test('a cookie copied before the account is disabled (admin API) is refused afterwards, and after it is enabled again', async () => {
    const [one, two] = env.urls
    const { handle, context } = await signUp(env, one)
    const copy = await copyOf(env, context)
    assert.equal(await isSignedIn(copy, two, handle), true)
    const user = await env.server.domain.stores.users.findByScreenName(handle)
    assert.ok(user)
    assert.equal((await env.server.admin('PATCH', `/admin/v1/users/${user.id}`, { disabled: true })).status, 200)
    assert.equal(await isSignedIn(copy, two, handle), false)
    assert.equal((await env.server.admin('PATCH', `/admin/v1/users/${user.id}`, { disabled: false })).status, 200)
    assert.equal(await isSignedIn(copy, one, handle), false, 'enabling the account brings no old session back')
  })

  const FIREFOX_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'
  const SAFARI_ON_IOS = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1'

  test('the session list shows two browsers by name; signing one out ends only that one', async () => {
    const [one, two] = env.urls
    const { page: first, handle } = await signUp(env, one, FIREFOX_ON_LINUX)
    const second = await signIn(env, two, handle, SAFARI_ON_IOS)
    await open(second, `${one}/settings/sessions`)
    await assertAccessible(second, 'the session list')
    const rows = second.locator('tbody tr')
    assert.equal(await rows.count(), 2)
    const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '))
    // Each browser by the name a person reads, its whole user agent on hover.
    const mine = texts.find((t) => t.includes('Safari'))
    const theirs = texts.find((t) => t.includes('Firefox'))
    assert.match(mine ?? '', /^Safari on iOS \(this browser\) 127\.0\.0\.1 \d{4}-\d\d-\d\d \d\d:\d\d UTC \d{4}-\d\d-\d\d \d\d:\d\d UTC Sign out/)
    assert.match(theirs ?? '', /^Firefox on Linux 127\.0\.0\.1 \d{4}-\d\d-\d\d \d\d:\d\d UTC/)
    assert.doesNotMatch(theirs ?? '', /this browser/)
    assert.equal(await second.locator('tbody tr:has-text("Firefox") td span').first().getAttribute('title'), FIREFOX_ON_LINUX)

    await submitWith(second, 'tbody tr:has-text("Firefox") button')
    assert.match(await mainText(second), /That session is signed out\./)
    assert.equal(await second.locator('tbody tr').count(), 1)
    assert.equal(await isSignedIn(first, two, handle), false, 'the first browser asks to sign in')
    assert.equal(await isSignedIn(second, one, handle), true, 'the second is still signed in')
  })
})

describe('a fresh password before secrets (sudo), in Chromium', { skip: skipReason, timeout: 300_000 }, () => {
  // A server of its own: the failures counted from 127.0.0.1 touch no other test.
  let env: Instances
  before(async () => {
    env = await startInstances({ signInMaxFailures: 3 })
  })
  after(() => env?.close())

  async function createApp(page: Page, url: string): Promise<string> {
    await open(page, `${url}/console/apps/new`)
    await page.fill('input[name="name"]', `Sudo app ${++counter}`)
    await page.fill('textarea[name="callbacks"]', 'https://sudo.example/callback')
    await submitWith(page, '#create_app')
    const id = /^\/console\/apps\/(\d+)$/.exec(new URL(page.url()).pathname)?.[1]
    assert.ok(id, `on the app's page, not ${page.url()}`)
    return id
  }

  test('a session whose password is older than 10 minutes asks for it before the secret page; the throttle counts those attempts', async () => {
    const [one, two] = env.urls
    const { page, handle } = await signUp(env, one)
    env.clock.advance(9 * 60_000)
    await createApp(page, two)
    assert.match((await page.textContent('#consumer_secret')) ?? '', /^[A-Za-z0-9]{50}$/, '9 minutes after the password: shown at once')

    env.clock.advance(2 * 60_000)
    const appId = await createApp(page, one)
    assert.equal(await page.locator('#consumer_secret').count(), 0, '11 minutes after the password: no secret yet')
    assert.match(await mainText(page), /Confirm your password/)
    await assertAccessible(page, 'the password confirmation page')
    await page.fill('#sudo_password', PASSWORD)
    await submitWith(page, '#confirm_password')
    assert.equal(new URL(page.url()).pathname, `/console/apps/${appId}`)
    assert.match((await page.textContent('#consumer_secret')) ?? '', /^[A-Za-z0-9]{50}$/, 'the secret, once the password is confirmed')
    const key = (await page.textContent('#consumer_key'))?.trim()

    env.clock.advance(11 * 60_000)
    await open(page, `${two}/console/apps/${appId}`)
    for (let attempt = 1; attempt <= 3; attempt++) {
      const asked = attempt === 1 ? await submitWith(page, '#regenerate_keys') : await submitWith(page, '#confirm_password')
      assert.equal(asked.status(), attempt === 1 ? 200 : 401)
      assert.match(await mainText(page), /Confirm your password/)
      await page.fill('#sudo_password', `wrong password ${attempt}`)
    }
    const third = await submitWith(page, '#confirm_password')
    assert.equal(third.status(), 401)
    assert.equal(await page.getByRole('alert').innerText(), 'The username or password is not right.')
    await page.fill('#sudo_password', PASSWORD)
    const throttled = await submitWith(page, '#confirm_password')
    assert.equal(throttled.status(), 429, 'three wrong confirmations: the right password is refused too')
    assert.match(await page.getByRole('alert').innerText(), /^Too many attempts to sign in\. Please try again in \d+ minutes?\.$/)
    assert.equal(await page.locator('#consumer_secret').count(), 0)
    const stored = await env.server.domain.stores.apps.findById(appId)
    assert.equal(stored?.consumerKey, key, 'the keys were not regenerated')

    const elsewhere = await (await newContext(env.browser)).newPage()
    await open(elsewhere, `${one}/console`)
    await elsewhere.fill('#username', handle)
    await elsewhere.fill('#password', PASSWORD)
    const signIn = await submitWith(elsewhere, '#sign_in')
    assert.equal(signIn.status(), 429, 'the sign-in form counts the same failures')
  })
})
