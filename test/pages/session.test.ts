// Issue 19: the browser session's idle timeout and absolute lifetime are enforced on the server,
// against an injected clock; "last seen" is written at most once a minute.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listBrowserSessions } from '../../src/domain/browser-sessions.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { buildTestApp, testClock, type TestApp, type TestSettings } from '../helpers/test-app.ts'
import { Browser } from '../helpers/browser.ts'
import { makeRequestToken, openAndAllow } from '../helpers/consent-pages.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

function useApp(settings: TestSettings = {}) {
  const clock = testClock()
  const env = { clock } as { clock: typeof clock; t: TestApp; app: AppRecord }
  before(async () => {
    env.t = await buildTestApp({ clock, settings })
    env.app = await makeApp(env.t.domain)
  })
  after(() => env.t.close())
  return env
}

async function signedInBrowser(env: { t: TestApp; app: AppRecord }): Promise<{ browser: Browser; user: UserRecord }> {
  const { user, password } = await makeUser(env.t.domain)
  const browser = new Browser(env.t.app)
  await openAndAllow(browser, '/oauth/authorize', (await makeRequestToken(env.t.domain, env.app)).token, { username: user.screenName, password })
  return { browser, user }
}

async function isSignedIn(env: { t: TestApp; app: AppRecord }, browser: Browser): Promise<boolean> {
  const page = await browser.get(`/oauth/authorize?oauth_token=${(await makeRequestToken(env.t.domain, env.app)).token}`)
  assert.equal(page.statusCode, 200)
  const signedIn = /You are signed in as/.test(page.body)
  // Signed out, the page asks for the password: never neither, never both.
  assert.equal(/name="password"/.test(page.body), !signedIn)
  return signedIn
}

describe('the idle timeout (default 12 hours), on the server', () => {
  const env = useApp()

  test('a session used within 12 hours stays; one unused for 12 hours asks to sign in again', async () => {
    const { browser } = await signedInBrowser(env)
    env.clock.advance(12 * HOUR - MINUTE)
    assert.equal(await isSignedIn(env, browser), true, 'unused for 12 hours less a minute')
    env.clock.advance(12 * HOUR - MINUTE)
    assert.equal(await isSignedIn(env, browser), true, 'the idle time counts from the last use, not from sign-in')
    env.clock.advance(12 * HOUR)
    assert.equal(await isSignedIn(env, browser), false, 'unused for 12 hours')
    env.clock.advance(MINUTE)
    assert.equal(await isSignedIn(env, browser), false, 'and it does not come back')
  })

  test('"last seen" is written at most once a minute', async () => {
    const { browser, user } = await signedInBrowser(env)
    const lastSeen = async () => (await listBrowserSessions(env.t.domain, user.id))[0]?.lastSeenAtMs
    const start = await lastSeen()
    env.clock.advance(MINUTE - 1000)
    assert.equal(await isSignedIn(env, browser), true)
    assert.equal(await lastSeen(), start, 'a use within the minute writes nothing')
    env.clock.advance(1000)
    assert.equal(await isSignedIn(env, browser), true)
    assert.equal(await lastSeen(), env.t.domain.clock.nowMs(), 'a use a minute later writes the time')
  })
})

describe('the idle timeout is a setting', () => {
  const env = useApp({ sessionIdleTimeoutSeconds: 600 })

  test('--session-idle-timeout 600: ten minutes unused end the session', async () => {
    const { browser } = await signedInBrowser(env)
    env.clock.advance(10 * MINUTE - 1000)
    assert.equal(await isSignedIn(env, browser), true)
    env.clock.advance(10 * MINUTE)
    assert.equal(await isSignedIn(env, browser), false)
  })
})

describe('the absolute lifetime (default 30 days), on the server', () => {
  const env = useApp()

  test('a session used every 11 hours still ends 30 days after sign-in', async () => {
    const { browser } = await signedInBrowser(env)
    let elapsed = 0
    while (elapsed + 11 * HOUR < 30 * DAY - MINUTE) {
      env.clock.advance(11 * HOUR)
      elapsed += 11 * HOUR
      assert.equal(await isSignedIn(env, browser), true, `in use after ${elapsed / HOUR} hours`)
    }
    env.clock.advance(30 * DAY - MINUTE - elapsed)
    assert.equal(await isSignedIn(env, browser), true, '30 days less a minute after sign-in')
    env.clock.advance(MINUTE)
    assert.equal(await isSignedIn(env, browser), false, '30 days after sign-in, though used a minute ago')
  })
})
