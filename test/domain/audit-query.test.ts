import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listAuditEvents, type ListedAuditEvent } from '../../src/domain/audit-query.ts'
import { deleteApp, updateApp } from '../../src/domain/registry/apps.ts'
import { E } from '../../src/errors/catalogue.ts'
import { StorageUnavailableError } from '../../src/storage/errors.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { assertRefusedWith } from '../helpers/service-refusal.ts'
import { openTestDomain, testClock, type TestDomain } from '../helpers/test-domain.ts'

// The audit trail as `latchkey audit` reads it: its filters (app by id or consumer key, a deleted
// app by id, person by screen name, since, limit), its order, and each event's screen name.

const START_MS = Date.UTC(2026, 0, 1)
const clock = testClock(START_MS)
let t: TestDomain
let alice: UserRecord
let bob: UserRecord
let app: AppRecord
let bobsApp: AppRecord
let gone: AppRecord
/** When the events after the registrations were recorded. */
let sinceUpdatesMs: number

before(async () => {
  t = await openTestDomain({ clock })
  // At START_MS: alice, her app; bob and his app; an app of alice's that is then deleted.
  alice = (await makeUser(t.domain, { screenName: 'Alice' })).user
  app = await makeApp(t.domain, { owner: alice, name: 'Alice App' })
  bob = (await makeUser(t.domain, { screenName: 'bob' })).user
  bobsApp = await makeApp(t.domain, { owner: bob, name: 'Bob App' })
  gone = await makeApp(t.domain, { owner: alice, name: 'Gone' })
  clock.advance(1000)
  await deleteApp(t.domain, gone.id)
  // A second later: alice's app updated; bob signs in to it; a row about a person since removed.
  clock.advance(1000)
  sinceUpdatesMs = clock.nowMs()
  await updateApp(t.domain, app.id, { description: 'first' })
  await t.domain.stores.audit.record({ atMs: clock.nowMs(), event: 'sign_in.succeeded', appId: app.id, userId: bob.id, address: '192.0.2.7', detail: null })
  clock.advance(1000)
  await t.domain.stores.audit.record({ atMs: clock.nowMs(), event: 'sign_in.failed', appId: null, userId: '999999999', address: null, detail: { reason: 'credentials' } })
})
after(() => t.close())

const list = (query: Parameters<typeof listAuditEvents>[1]) => listAuditEvents(t.domain, query)
const summary = (events: ListedAuditEvent[]) => events.map((e) => [e.event, e.appId, e.screenName])

describe('listAuditEvents', () => {
  test('every event, newest first (the last recorded first within a millisecond), with its person\'s screen name', async () => {
    assert.deepEqual(summary(await list({})), [
      ['sign_in.failed', null, null],
      ['sign_in.succeeded', app.id, 'bob'],
      ['app.updated', app.id, 'Alice'],
      ['app.deleted', gone.id, 'Alice'],
      ['app.created', gone.id, 'Alice'],
      ['app.created', bobsApp.id, 'bob'],
      ['user.created', null, 'bob'],
      ['app.created', app.id, 'Alice'],
      ['user.created', null, 'Alice'],
    ])
  })

  test('each event as recorded, plus the screen name: null without a person, and null for a person who no longer exists', async () => {
    const [unknownPerson, signIn] = await list({ limit: 2 })
    assert.deepEqual(signIn, { atMs: sinceUpdatesMs, event: 'sign_in.succeeded', appId: app.id, userId: bob.id, address: '192.0.2.7', detail: null, screenName: 'bob' })
    assert.deepEqual(unknownPerson, { atMs: sinceUpdatesMs + 1000, event: 'sign_in.failed', appId: null, userId: '999999999', address: null, detail: { reason: 'credentials' }, screenName: null })
  })

  test('app: by id or by consumer key, the same events', async () => {
    const byId = await list({ app: app.id })
    assert.deepEqual(summary(byId), [
      ['sign_in.succeeded', app.id, 'bob'],
      ['app.updated', app.id, 'Alice'],
      ['app.created', app.id, 'Alice'],
    ])
    assert.deepEqual(await list({ app: app.consumerKey }), byId)
  })

  test('app: a deleted app\'s events are found by its id; a numeric id never used finds none', async () => {
    assert.deepEqual(summary(await list({ app: gone.id })), [
      ['app.deleted', gone.id, 'Alice'],
      ['app.created', gone.id, 'Alice'],
    ])
    assert.deepEqual(await list({ app: '424242' }), [])
  })

  test('app: an unknown consumer key is refused (404 code 1004), digits in it or not', async () => {
    for (const ref of ['no-such-key', 'key123', '123key', '12 34', gone.consumerKey]) {
      await assertRefusedWith(list({ app: ref }), E.notFound, `no app with id or consumer key ${ref}`)
    }
  })

  test('app: an outage while looking the app up is the outage, not a deleted app\'s empty trail', async () => {
    const outage = new StorageUnavailableError('database unavailable: ECONNRESET')
    const apps = { ...t.domain.stores.apps, findById: () => Promise.reject(outage) }
    const down = { ...t.domain, stores: { ...t.domain.stores, apps } }
    await assert.rejects(listAuditEvents(down, { app: '424242' }), outage)
    await assert.rejects(listAuditEvents(down, { app: app.id }), outage)
    // The twin: with the lookup up, the same query answers.
    assert.equal((await list({ app: app.id })).length, 3)
  })

  test('user: by screen name, in any case, with or without @; events where they are the person', async () => {
    const bobs = await list({ user: 'bob' })
    assert.deepEqual(summary(bobs), [
      ['sign_in.succeeded', app.id, 'bob'],
      ['app.created', bobsApp.id, 'bob'],
      ['user.created', null, 'bob'],
    ])
    assert.deepEqual(await list({ user: '@BOB' }), bobs)
    // Typed as the sign-in form and the admin API's people lookup take it: spaces around it are dropped.
    assert.deepEqual(await list({ user: ' @bob ' }), bobs)
    assert.deepEqual(summary(await list({ user: 'alice' })).map(([event]) => event), ['app.updated', 'app.deleted', 'app.created', 'app.created', 'user.created'])
  })

  test('user: an unknown screen name or id is refused (404 code 1004), named as given; a user id finds them too', async () => {
    for (const ref of ['nobody', '@nobody', '@@bob', 'bob@', '999999999']) {
      await assertRefusedWith(list({ user: ref }), E.notFound, `no user with id or screen name ${ref}`)
    }
    assert.deepEqual(await list({ user: bob.id }), await list({ user: 'bob' }))
  })

  test('app and user together: only the events of both', async () => {
    assert.deepEqual(summary(await list({ app: app.id, user: '@bob' })), [['sign_in.succeeded', app.id, 'bob']])
    assert.deepEqual(await list({ app: bobsApp.id, user: 'Alice' }), [])
  })

  test('since: the events at or after that millisecond', async () => {
    assert.deepEqual(summary(await list({ sinceMs: sinceUpdatesMs })).map(([event]) => event), ['sign_in.failed', 'sign_in.succeeded', 'app.updated'])
    assert.deepEqual(summary(await list({ sinceMs: sinceUpdatesMs + 1 })).map(([event]) => event), ['sign_in.failed'])
    assert.equal((await list({ sinceMs: sinceUpdatesMs - 1 })).length, 3)
    assert.equal((await list({ sinceMs: sinceUpdatesMs - 1000 })).length, 4)
    assert.equal((await list({ sinceMs: START_MS + 1 })).length, 4)
    assert.equal((await list({ sinceMs: START_MS })).length, 9)
    assert.deepEqual(await list({ sinceMs: sinceUpdatesMs + 1001 }), [])
  })

  test('limit: the newest that many, after the other filters', async () => {
    assert.deepEqual(summary(await list({ limit: 1 })), [['sign_in.failed', null, null]])
    assert.deepEqual(summary(await list({ app: app.id, limit: 2 })).map(([event]) => event), ['sign_in.succeeded', 'app.updated'])
    assert.equal((await list({ user: 'alice', sinceMs: START_MS, limit: 3 })).length, 3)
    assert.equal((await list({ limit: 100 })).length, 9)
  })

  // Last: it adds rows the tests above do not expect.
  test('without a limit, the newest 100', async () => {
    clock.advance(1000)
    for (let i = 1; i <= 100; i++) {
      await t.domain.stores.audit.record({ atMs: clock.nowMs() + i, event: 'sign_in.failed', appId: null, userId: alice.id, address: null, detail: { i } })
    }
    const events = await list({})
    assert.equal(events.length, 100)
    assert.deepEqual([events[0]?.detail, events[99]?.detail], [{ i: 100 }, { i: 1 }])
    assert.ok(events.every((e) => e.screenName === 'Alice'))
    assert.equal((await list({ limit: 101 })).length, 101)
  })
})
