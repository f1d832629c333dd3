// Issue 19's browser sessions as use cases (src/domain/browser-sessions.ts), on real storage with a
// clock the tests move: when a session is live, what a use writes, and what ending sessions does.
// The pages' tests (test/pages/session.test.ts) check the same rules through the cookie.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import {
  FRESH_PASSWORD_MS,
  LAST_SEEN_STEP_MS,
  MAX_OPEN_SESSIONS,
  endBrowserSession,
  endEveryBrowserSession,
  endOtherBrowserSessions,
  hasSecretToReveal,
  listBrowserSessions,
  markPasswordFresh,
  markSecretToReveal,
  resumeBrowserSession,
  startBrowserSession,
  takeSecretToReveal,
  type LiveSession,
  type SessionClaim,
} from '../../src/domain/browser-sessions.ts'
import { rotateAppKeys } from '../../src/domain/registry/apps.ts'
import type { UserRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { openTestDomain, testClock, type TestDomain } from '../helpers/test-domain.ts'

const MINUTE = 60_000
// Limits of their own (not the defaults), so that a test reaches them in a few steps and the
// idle timeout (20 minutes) is longer than the fresh-password window (10 minutes).
const IDLE_MS = 20 * MINUTE
const LIFETIME_MS = 120 * MINUTE

const clock = testClock()
let t: TestDomain
before(async () => {
  t = await openTestDomain({ clock, settings: { sessionIdleTimeoutSeconds: IDLE_MS / 1000, sessionLifetimeSeconds: LIFETIME_MS / 1000 } })
})
after(() => t.close())

async function person(): Promise<UserRecord> {
  return (await makeUser(t.domain)).user
}

const start = (user: UserRecord, userAgent: string | undefined = 'Test Browser/1.0', address = '192.0.2.10') =>
  startBrowserSession(t.domain, { user, userAgent, address })
const resume = (claim: SessionClaim) => resumeBrowserSession(t.domain, claim)
const row = async (claim: SessionClaim) => t.domain.stores.sessions.findById(claim.sessionId)
const isLive = async (claim: SessionClaim) => (await resume(claim)) !== undefined
const sessionEvents = async (userId: string) => (await t.domain.stores.audit.list({ userId, limit: 100 })).filter((e) => e.event === 'sessions.ended')

describe('startBrowserSession', () => {
  test(`a person holds at most ${MAX_OPEN_SESSIONS} open sessions: a new one past it ends the least recently seen, and only as many as needed`, async () => {
    const user = await person()
    const claims: SessionClaim[] = []
    for (let i = 0; i < MAX_OPEN_SESSIONS; i++) {
      claims.push(await start(user))
      clock.advance(1000)
    }
    // At the cap (the twin): every session is live.
    assert.equal((await listBrowserSessions(t.domain, user.id)).length, MAX_OPEN_SESSIONS)
    // The oldest one is used again, so the second oldest is now the least recently seen.
    clock.advance(LAST_SEEN_STEP_MS)
    assert.ok(await resume(claims[0]!))
    const newest = await start(user)
    assert.equal((await listBrowserSessions(t.domain, user.id)).length, MAX_OPEN_SESSIONS)
    assert.deepEqual(
      await Promise.all([claims[0]!, claims[1]!, claims[2]!, newest].map(isLive)),
      [true, false, true, true],
      'the least recently seen ended; the one used again, the next one and the new one live',
    )
    const other = await person()
    assert.ok(await isLive(await start(other)), "another person's sessions are their own")
  })

  test('writes a live row for the person at the clock\'s time and returns the claim the cookie carries', async () => {
    const user = await person()
    const now = clock.nowMs()
    const claim = await start(user, 'Firefox/140', '203.0.113.7')
    assert.match(claim.sessionId, /^[A-Za-z0-9]{32}$/)
    assert.deepEqual(claim, { sessionId: claim.sessionId, userId: user.id, generation: 0 })
    assert.deepEqual(await row(claim), {
      id: claim.sessionId,
      userId: user.id,
      generation: 0,
      createdAtMs: now,
      lastSeenAtMs: now,
      passwordAtMs: now,
      userAgent: 'Firefox/140',
      address: '203.0.113.7',
      endedAtMs: null,
    })
    const other = await start(user)
    assert.notEqual(other.sessionId, claim.sessionId, 'each sign-in is a session of its own')
  })

  test('keeps the browser\'s words without control characters, trimmed, at most 512 characters', async () => {
    const user = await person()
    const agentOf = async (userAgent: string) => (await row(await start(user, userAgent)))?.userAgent
    assert.equal(await agentOf('\u0000A\u001fB\u007fC~\u0080D\tE\r\nF'), 'A B C~\u0080D E  F', 'U+0000 to U+001F and U+007F become spaces; ~ and U+0080 stay')
    assert.equal(await agentOf('  Mozilla/5.0 (X11)\u0000 '), 'Mozilla/5.0 (X11)')
    assert.equal(await agentOf('x'.repeat(600)), 'x'.repeat(512))
    assert.equal(await agentOf(' ' + 'y'.repeat(512) + 'z'), 'y'.repeat(512), 'trimmed before it is cut')
    const none = await startBrowserSession(t.domain, { user, userAgent: undefined, address: '192.0.2.11' })
    assert.equal((await row(none))?.userAgent, '', 'a browser that sends none')
  })

  test('after the sessions were ended everywhere, a new one is of the person\'s new generation and live', async () => {
    const user = await person()
    const old = await start(user)
    assert.equal(await endEveryBrowserSession(t.domain, user.id), true)
    const raised = await t.domain.stores.users.findById(user.id)
    assert.ok(raised)
    const claim = await start(raised)
    assert.equal(claim.generation, 1)
    assert.equal((await row(claim))?.generation, 1)
    assert.equal(await isLive(claim), true)
    assert.equal(await isLive(old), false)
  })

  test('removes the person\'s rows that can never be live again, and only those', async () => {
    const user = await person()
    const someoneElse = await person()
    const ended = await start(user)
    assert.equal(await endBrowserSession(t.domain, user.id, ended.sessionId), true)
    const idle = await start(user)
    const theirs = await start(someoneElse)
    clock.advance(IDLE_MS - MINUTE)
    const recent = await start(user)
    clock.advance(MINUTE + 1)
    // `idle` has been unused for longer than the idle timeout; `recent` for a minute.
    await start(user)
    assert.equal(await row(ended), undefined, 'an ended session goes')
    assert.equal(await row(idle), undefined, 'an idle one goes')
    assert.ok(await row(recent), 'a live one stays')
    assert.ok(await row(theirs), 'another person\'s rows are not touched, even dead ones')
  })

  test('removes a session older than the lifetime though used a minute ago, and a session of an old generation', async () => {
    const user = await person()
    const old = await start(user)
    for (let used = 0; used < LIFETIME_MS; used += IDLE_MS / 2) {
      clock.advance(IDLE_MS / 2)
      await resume(old)
    }
    clock.advance(1)
    await start(user)
    assert.equal(await row(old), undefined, 'past the lifetime')

    const before = await start(user)
    await endEveryBrowserSession(t.domain, user.id)
    await start((await t.domain.stores.users.findById(user.id))!)
    assert.equal(await row(before), undefined, 'of the generation before')
  })
})

describe('resumeBrowserSession', () => {
  test('a live claim gives the session, the person and the claim back', async () => {
    const user = await person()
    const claim = await start(user)
    const live = await resume(claim)
    assert.ok(live)
    assert.deepEqual(live.claim, claim)
    assert.equal(live.user.id, user.id)
    assert.equal(live.user.screenName, user.screenName)
    assert.deepEqual(live.session, await row(claim))
    assert.equal(live.isPasswordFresh, true)
  })

  test('ends at the idle timeout: unused for the timeout less a millisecond it is live, for the timeout it is not', async () => {
    const user = await person()
    const claim = await start(user)
    clock.advance(IDLE_MS - 1)
    assert.equal(await isLive(claim), true)
    // That use counts: the idle time starts again from it.
    clock.advance(IDLE_MS - 1)
    assert.equal(await isLive(claim), true)
    const other = await start(user)
    clock.advance(IDLE_MS)
    assert.equal(await isLive(other), false)
    assert.equal(await isLive(claim), false)
    assert.equal((await row(other))?.endedAtMs, null, 'nothing is written: the row is only old')
  })

  test('ends at the lifetime however often it is used: live the millisecond before, not at it', async () => {
    const user = await person()
    const claim = await start(user)
    const step = IDLE_MS / 2
    for (let used = step; used < LIFETIME_MS; used += step) {
      clock.advance(step)
      assert.equal(await isLive(claim), true, `used after ${used / MINUTE} minutes`)
    }
    clock.advance(step - 1)
    assert.equal(await isLive(claim), true, 'the lifetime less a millisecond')
    clock.advance(1)
    assert.equal(await isLive(claim), false, 'the lifetime, though used minutes ago')
  })

  test('a session that begins after the clock\'s now (a clock moved back) is not live', async () => {
    const user = await person()
    const claim = await start(user)
    assert.equal(await isLive(claim), true, 'at the moment it began')
    clock.advance(-1)
    assert.equal(await isLive(claim), false)
    clock.advance(1)
    assert.equal(await isLive(claim), true)
  })

  test('refuses a claim whose person is unknown, disabled, or of another generation', async () => {
    const user = await person()
    const claim = await start(user)
    assert.equal(await isLive(claim), true, 'the claim as given')
    assert.equal(await isLive({ ...claim, userId: '999999999999' }), false, 'unknown person')
    assert.equal(await isLive({ ...claim, generation: 1 }), false, 'a generation the person does not have')

    const disabled = await person()
    const theirs = await start(disabled)
    assert.equal(await isLive(theirs), true)
    // Disabled in the row itself, the generation left as it was: the flag alone refuses the session.
    await t.domain.stores.users.update(disabled.id, { disabledAtMs: clock.nowMs() })
    assert.equal(await isLive(theirs), false)
    await t.domain.stores.users.update(disabled.id, { disabledAtMs: null })
    assert.equal(await isLive(theirs), true, 'enabled again, the same claim is live')
  })

  test('refuses a claim naming no session, someone else\'s session, or a session of an earlier generation', async () => {
    const user = await person()
    const someoneElse = await person()
    const claim = await start(user)
    const theirs = await start(someoneElse)
    assert.equal(await isLive(claim), true, 'the claim as given')
    assert.equal(await isLive({ ...claim, sessionId: 'A'.repeat(32) }), false, 'no such session')
    assert.equal(await isLive({ ...claim, sessionId: theirs.sessionId }), false, 'another person\'s session under this person\'s claim')
    assert.equal(await isLive(theirs), true)

    // The person's generation is raised: a claim that says the new generation but names a session
    // begun before it is refused by the session's own generation.
    await endEveryBrowserSession(t.domain, user.id)
    assert.equal(await isLive({ ...claim, generation: 1 }), false)
    assert.equal(await isLive(await start((await t.domain.stores.users.findById(user.id))!)), true)
  })

  test('refuses an ended session', async () => {
    const user = await person()
    const claim = await start(user)
    assert.equal(await isLive(claim), true)
    assert.equal(await endBrowserSession(t.domain, user.id, claim.sessionId), true)
    assert.equal(await isLive(claim), false)
  })

  test('writes "last seen" when a minute or more has passed since, not sooner', async () => {
    const user = await person()
    const claim = await start(user)
    const began = clock.nowMs()
    clock.advance(LAST_SEEN_STEP_MS - 1)
    const soon = await resume(claim)
    assert.equal(soon?.session.lastSeenAtMs, began)
    assert.equal((await row(claim))?.lastSeenAtMs, began, 'a use within the minute writes nothing')
    clock.advance(1)
    const later = await resume(claim)
    assert.equal(later?.session.lastSeenAtMs, clock.nowMs(), 'the session returned says when it was seen')
    assert.equal((await row(claim))?.lastSeenAtMs, clock.nowMs(), 'a use a minute later writes it')
  })

  test('the password is fresh for 10 minutes after it was entered', async () => {
    const user = await person()
    const claim = await start(user)
    clock.advance(FRESH_PASSWORD_MS - 1)
    assert.equal((await resume(claim))?.isPasswordFresh, true)
    clock.advance(1)
    const stale = await resume(claim)
    assert.ok(stale)
    assert.equal(stale.isPasswordFresh, false)
  })
})

describe('markPasswordFresh', () => {
  test('opens the fresh-password window again from now, for this session only', async () => {
    const user = await person()
    const claim = await start(user)
    const other = await start(user)
    clock.advance(FRESH_PASSWORD_MS)
    const live = await resume(claim)
    assert.ok(live && !live.isPasswordFresh)
    await markPasswordFresh(t.domain, live)
    assert.equal((await row(claim))?.passwordAtMs, clock.nowMs())
    assert.equal((await resume(claim))?.isPasswordFresh, true)
    assert.equal((await resume(other))?.isPasswordFresh, false)
    clock.advance(FRESH_PASSWORD_MS)
    assert.equal((await resume(claim))?.isPasswordFresh, false)
  })
})

describe('the consumer secret shown once (markSecretToReveal, hasSecretToReveal, takeSecretToReveal)', () => {
  const live = async (claim: SessionClaim): Promise<LiveSession> => {
    const resumed = await resume(claim)
    assert.ok(resumed, 'the session is live')
    return resumed
  }

  test('after two regenerations of the keys in two sessions, the first session no longer sees a secret; the second sees the newest, once', async () => {
    const user = await person()
    const app = await makeApp(t.domain, { owner: user })
    const first = await start(user)
    const second = await start(user)
    const once = await rotateAppKeys(t.domain, app.id)
    await markSecretToReveal(t.domain, await live(first), once)
    const twice = await rotateAppKeys(t.domain, app.id)
    await markSecretToReveal(t.domain, await live(second), twice)

    // The first session's mark names the pair it made: the app now has another, not its to see.
    assert.equal(hasSecretToReveal(t.domain, await live(first), twice), false)
    assert.equal(await takeSecretToReveal(t.domain, await live(first), twice), false)
    assert.equal(hasSecretToReveal(t.domain, await live(second), twice), true)
    assert.equal(await takeSecretToReveal(t.domain, await live(second), twice), true)
    assert.equal(hasSecretToReveal(t.domain, await live(second), twice), false, 'once')
  })
})

describe('endBrowserSession', () => {
  test('ends one live session of the person, at the clock\'s time; false when it is not theirs or already ended', async () => {
    const user = await person()
    const someoneElse = await person()
    const claim = await start(user)
    const kept = await start(user)
    const theirs = await start(someoneElse)
    assert.equal(await endBrowserSession(t.domain, user.id, theirs.sessionId), false, 'not this person\'s')
    assert.equal(await isLive(theirs), true)
    assert.equal(await endBrowserSession(t.domain, user.id, claim.sessionId), true)
    assert.equal((await row(claim))?.endedAtMs, clock.nowMs())
    assert.equal(await isLive(claim), false)
    assert.equal(await isLive(kept), true, 'the person\'s other session is not touched')
    assert.equal(await endBrowserSession(t.domain, user.id, claim.sessionId), false, 'already ended')
  })
})

describe('endOtherBrowserSessions', () => {
  test('ends every other live session of the person, keeps this one, and audits how many', async () => {
    const user = await person()
    const someoneElse = await person()
    const current = await start(user)
    const others = [await start(user), await start(user)]
    const alreadyEnded = await start(user)
    await endBrowserSession(t.domain, user.id, alreadyEnded.sessionId)
    const theirs = await start(someoneElse)
    const live = await resume(current)
    assert.ok(live)
    clock.advance(1000)
    assert.equal(await endOtherBrowserSessions(t.domain, live, '198.51.100.4'), 2)
    assert.equal(await isLive(current), true)
    for (const other of others) {
      assert.equal(await isLive(other), false)
      assert.equal((await row(other))?.endedAtMs, clock.nowMs())
    }
    assert.equal(await isLive(theirs), true)
    const [event, ...more] = await sessionEvents(user.id)
    assert.equal(more.length, 0)
    assert.deepEqual(
      { atMs: event?.atMs, userId: event?.userId, appId: event?.appId, address: event?.address, detail: event?.detail },
      { atMs: clock.nowMs(), userId: user.id, appId: null, address: '198.51.100.4', detail: { scope: 'others', sessions: 2 } },
    )
    assert.equal(await endOtherBrowserSessions(t.domain, live, '198.51.100.4'), 0, 'none left')
  })
})

describe('endEveryBrowserSession', () => {
  test('ends all the person\'s sessions by raising their generation, and audits it', async () => {
    const user = await person()
    const someoneElse = await person()
    const claims = [await start(user), await start(user)]
    const theirs = await start(someoneElse)
    assert.equal(await endEveryBrowserSession(t.domain, user.id, '198.51.100.5'), true)
    for (const claim of claims) assert.equal(await isLive(claim), false)
    assert.equal(await isLive(theirs), true)
    assert.equal((await t.domain.stores.users.findById(user.id))?.sessionGeneration, 1)
    const [event] = await sessionEvents(user.id)
    assert.deepEqual({ address: event?.address, detail: event?.detail }, { address: '198.51.100.5', detail: { scope: 'all' } })
  })

  test('without an address (the CLI) the audit row has none; an unknown person is false and audits nothing', async () => {
    const user = await person()
    assert.equal(await endEveryBrowserSession(t.domain, user.id), true)
    const [event] = await sessionEvents(user.id)
    assert.deepEqual({ address: event?.address, detail: event?.detail }, { address: null, detail: { scope: 'all' } })
    assert.equal(await endEveryBrowserSession(t.domain, '999999999998', '198.51.100.6'), false)
    assert.deepEqual(await sessionEvents('999999999998'), [])
  })
})

describe('listBrowserSessions', () => {
  test('lists the person\'s live sessions, last seen first, and none that has ended in any way', async () => {
    const user = await person()
    const someoneElse = await person()
    const idle = await start(user, 'idle')
    clock.advance(2 * MINUTE)
    const ended = await start(user, 'ended')
    await endBrowserSession(t.domain, user.id, ended.sessionId)
    const first = await start(user, 'first')
    await start(someoneElse, 'theirs')
    clock.advance(2 * MINUTE)
    const second = await start(user, 'second')
    clock.advance(IDLE_MS - 3 * MINUTE)
    await resume(first)
    clock.advance(2 * MINUTE)
    // idle: unused for the whole timeout; first: seen a moment ago; second: 2 minutes earlier.
    const listed = await listBrowserSessions(t.domain, user.id)
    assert.deepEqual(listed.map((s) => s.userAgent), ['first', 'second'])
    assert.deepEqual(listed[0], await row(first))
    assert.equal(await isLive(idle), false)
    assert.deepEqual(listed, [await row(first), await row(second)])
    await endEveryBrowserSession(t.domain, user.id)
    assert.deepEqual(await listBrowserSessions(t.domain, user.id), [], 'an earlier generation')
  })
})
