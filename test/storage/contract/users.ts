import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, test } from 'node:test'
import type { BrowserSessionRecord } from '../../../src/storage/records.ts'
import { NOW, unique, userRecord, type ContractKit } from './fixtures.ts'

/** The storage contract's part on users and browser sessions (src/storage/types.ts). */
export function usersContract({ withApp }: ContractKit): void {
  describe('users', () => {
    test('a created user is found by id and by screen name, unchanged', async () => {
      await withApp(async (s) => {
        const user = userRecord({ screenName: 'Alice_1', name: 'Alice Émile' })
        assert.equal(await s.users.create(user), true)
        assert.deepEqual(await s.users.findById(user.id), user)
        assert.deepEqual(await s.users.findByScreenName('Alice_1'), user)
        const later = userRecord({ sessionGeneration: 3, isDisabled: true })
        assert.equal(await s.users.create(later), true)
        assert.deepEqual(await s.users.findById(later.id), later, 'a session generation and a disabled account read back as written')
      })
    })

    test('screen names are looked up without regard to case', async () => {
      await withApp(async (s) => {
        const user = userRecord({ screenName: 'MixedCase' })
        await s.users.create(user)
        assert.equal((await s.users.findByScreenName('mixedcase'))?.id, user.id)
        assert.equal((await s.users.findByScreenName('MIXEDCASE'))?.id, user.id)
      })
    })

    test('a screen name taken in another case is refused and the first user is kept', async () => {
      await withApp(async (s) => {
        const first = userRecord({ screenName: 'Taken' })
        await s.users.create(first)
        assert.equal(await s.users.create(userRecord({ screenName: 'tAKEN' })), false)
        assert.deepEqual(await s.users.findByScreenName('taken'), first)
      })
    })

    test('an unknown id or screen name finds nothing', async () => {
      await withApp(async (s) => {
        assert.equal(await s.users.findById('999999'), undefined)
        assert.equal(await s.users.findByScreenName('nobody_here'), undefined)
      })
    })

    test('list returns every user', async () => {
      await withApp(async (s, owner) => {
        const more = [userRecord(), userRecord()]
        for (const user of more) await s.users.create(user)
        const ids = (await s.users.list()).map((u) => u.id).sort()
        assert.deepEqual(ids, [owner.id, ...more.map((u) => u.id)].sort())
      })
    })
  })

  describe('browser sessions', () => {
    const sessionRecord = (userId: string, generation = 0, overrides: Partial<BrowserSessionRecord> = {}): BrowserSessionRecord => ({
      id: `s${unique().replace(/[^A-Za-z0-9]/g, '')}`.padEnd(32, '0').slice(0, 32),
      userId,
      generation,
      createdAtMs: NOW,
      lastSeenAtMs: NOW,
      passwordAtMs: NOW,
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0 « Ünïcode »',
      address: '2001:db8::1',
      endedAtMs: null,
      ...overrides,
    })

    test('a created session is found unchanged; an unknown id finds nothing', async () => {
      await withApp(async (s, user) => {
        const session = sessionRecord(user.id)
        await s.sessions.create(session)
        assert.deepEqual(await s.sessions.findById(session.id), session)
        assert.equal(await s.sessions.findById('0'.repeat(32)), undefined)
      })
    })

    test('touch and confirmPassword set their time only; false for an unknown session', async () => {
      await withApp(async (s, user) => {
        const session = sessionRecord(user.id)
        await s.sessions.create(session)
        assert.equal(await s.sessions.touch(session.id, NOW + 5), true)
        assert.equal(await s.sessions.confirmPassword(session.id, NOW + 7), true)
        assert.deepEqual(await s.sessions.findById(session.id), { ...session, lastSeenAtMs: NOW + 5, passwordAtMs: NOW + 7 })
        assert.equal(await s.sessions.touch('0'.repeat(32), NOW), false)
        assert.equal(await s.sessions.confirmPassword('0'.repeat(32), NOW), false)
      })
    })

    test('a reveal mark is on the session as read until taken; only one of concurrent takers gets it, and only before it expires', async () => {
      await withApp(async (s, user) => {
        const session = sessionRecord(user.id)
        const other = sessionRecord(user.id)
        await s.sessions.create(session)
        await s.sessions.create(other)
        assert.equal(await s.sessions.markReveal(session.id, 'app:key', NOW + 300_000), true)
        assert.equal(await s.sessions.markReveal('0'.repeat(32), 'app:key', NOW + 300_000), false)
        assert.deepEqual((await s.sessions.findById(session.id))?.reveal, { mark: 'app:key', untilMs: NOW + 300_000 })
        assert.equal((await s.sessions.findById(other.id))?.reveal, undefined)
        assert.equal(await s.sessions.takeReveal(session.id, 'app:key', NOW + 300_000), false, 'expired')
        assert.equal(await s.sessions.takeReveal(session.id, 'app:other-key', NOW), false)
        assert.equal(await s.sessions.takeReveal(other.id, 'app:key', NOW), false)
        const takes = await Promise.all(Array.from({ length: 8 }, () => s.sessions.takeReveal(session.id, 'app:key', NOW)))
        assert.deepEqual(takes.filter(Boolean), [true], 'one taker gets it')
        assert.deepEqual(await s.sessions.findById(session.id), session, 'gone once taken; the session itself unchanged')
      })
    })

    test('end ends a session of its own person once; not another person\'s', async () => {
      await withApp(async (s, user) => {
        const other = userRecord()
        await s.users.create(other)
        const session = sessionRecord(user.id)
        await s.sessions.create(session)
        assert.equal(await s.sessions.end(session.id, other.id, NOW + 1), false, "someone else's session")
        assert.equal((await s.sessions.findById(session.id))?.endedAtMs, null)
        assert.equal(await s.sessions.end(session.id, user.id, NOW + 2), true)
        assert.equal((await s.sessions.findById(session.id))?.endedAtMs, NOW + 2)
        assert.equal(await s.sessions.end(session.id, user.id, NOW + 3), false, 'already ended')
        assert.equal((await s.sessions.findById(session.id))?.endedAtMs, NOW + 2)
      })
    })

    test('endOthers ends every open session of the person but one, and no one else\'s', async () => {
      await withApp(async (s, user) => {
        const other = userRecord()
        await s.users.create(other)
        const [keep, a, b] = [sessionRecord(user.id), sessionRecord(user.id), sessionRecord(user.id)]
        const theirs = sessionRecord(other.id)
        for (const session of [keep, a, b, theirs]) await s.sessions.create(session)
        assert.equal(await s.sessions.end(b.id, user.id, NOW), true)
        assert.equal(await s.sessions.endOthers(user.id, keep.id, NOW + 9), 1, 'only a was still open')
        assert.deepEqual((await s.sessions.listOpen(user.id)).map((x) => x.id), [keep.id])
        assert.deepEqual((await s.sessions.listOpen(other.id)).map((x) => x.id), [theirs.id])
      })
    })

    test('endAll raises the generation: every session of the person leaves the open list, the user row shows it', async () => {
      await withApp(async (s, user) => {
        const other = userRecord()
        await s.users.create(other)
        const [a, b] = [sessionRecord(user.id, 0, { lastSeenAtMs: NOW + 1 }), sessionRecord(user.id)]
        const theirs = sessionRecord(other.id)
        for (const session of [a, b, theirs]) await s.sessions.create(session)
        assert.deepEqual((await s.sessions.listOpen(user.id)).map((x) => x.id), [a.id, b.id], 'last seen first')
        assert.equal(await s.sessions.endAll(user.id), true)
        assert.equal((await s.users.findById(user.id))?.sessionGeneration, 1)
        assert.deepEqual(await s.sessions.listOpen(user.id), [])
        assert.equal(await s.sessions.endAll(user.id), true)
        assert.equal((await s.users.findById(user.id))?.sessionGeneration, 2)
        const fresh = sessionRecord(user.id, 2)
        await s.sessions.create(fresh)
        assert.deepEqual((await s.sessions.listOpen(user.id)).map((x) => x.id), [fresh.id], 'a session of the new generation is open')
        assert.deepEqual((await s.sessions.listOpen(other.id)).map((x) => x.id), [theirs.id], "another person's sessions stay")
        assert.equal((await s.users.findById(other.id))?.sessionGeneration, undefined)
        assert.equal(await s.sessions.endAll('999999'), false)
      })
    })

    test('admin.updateUser with endSessions raises the generation in the same change', async () => {
      await withApp(async (s, user) => {
        const updated = await s.users.update(user.id, { passwordHash: 'scrypt$other', endSessions: true })
        assert.equal(updated?.sessionGeneration, 1)
        assert.equal(updated?.passwordHash, 'scrypt$other')
        assert.equal((await s.users.update(user.id, { name: 'Renamed' }))?.sessionGeneration, 1, 'no endSessions: unchanged')
      })
    })

    test('admin sign-in unlocks: the latest clearing of each key, only of the keys asked for', async () => {
      await withApp(async (s) => {
        const key = `account:${randomUUID()}`
        assert.deepEqual(await s.signInUnlocks.latest([key]), new Map())
        await s.signInUnlocks.record(key, NOW)
        await s.signInUnlocks.record(key, NOW + 5)
        await s.signInUnlocks.record('address:192.0.2.1', NOW + 1)
        assert.deepEqual(await s.signInUnlocks.latest([key, 'address:unknown']), new Map([[key, NOW + 5]]))
        assert.deepEqual(await s.signInUnlocks.latest([]), new Map())
      })
    })

    test('deleteDead removes ended, old-generation, too old and idle rows of the person only', async () => {
      await withApp(async (s, user) => {
        const other = userRecord()
        await s.users.create(other)
        await s.sessions.endAll(user.id)
        const live = sessionRecord(user.id, 1, { createdAtMs: NOW, lastSeenAtMs: NOW + 10 })
        const dead = [
          sessionRecord(user.id, 1, { endedAtMs: NOW }),
          sessionRecord(user.id, 0),
          sessionRecord(user.id, 1, { createdAtMs: NOW - 1, lastSeenAtMs: NOW + 10 }),
          sessionRecord(user.id, 1, { lastSeenAtMs: NOW + 4 }),
        ]
        const theirs = sessionRecord(other.id, 0, { endedAtMs: NOW })
        for (const session of [live, ...dead, theirs]) await s.sessions.create(session)
        assert.equal(await s.sessions.deleteDead(user.id, { createdBeforeMs: NOW, seenBeforeMs: NOW + 5 }), dead.length)
        assert.deepEqual(await s.sessions.findById(live.id), live)
        for (const session of dead) assert.equal(await s.sessions.findById(session.id), undefined)
        assert.deepEqual(await s.sessions.findById(theirs.id), theirs, "another person's rows are left")
      })
    })
  })
}
