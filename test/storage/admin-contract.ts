import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Stores } from '../../src/storage/types.ts'
import { accessTokenRecord, appRecord, auditEvent, bearerTokenRecord, requestTokenRecord, userRecord, withFreshStores, type OpenFreshStores } from './contract.ts'

/**
 * The admin tokens', sign-in unlocks' and listings' contract (src/storage/admin-types.ts), with a key
 * rotation's, on every adapter: the admin API's lists
 * page strictly after their cursor, its filters keep only what they name, and a key rotation does
 * exactly what it was asked in one go.
 */
export function adminContract(adapter: string, open: OpenFreshStores): void {
  const withStores = (body: (s: Stores) => Promise<void>) => withFreshStores(open, body)

  describe(`${adapter} admin store`, () => {
    test('admin tokens: found by value only, listed by id, revoked once', () =>
      withStores(async (s) => {
        await s.adminTokens.create({ id: 'b-token', name: 'second', createdAtMs: 2, revokedAtMs: null }, 'value-b')
        await s.adminTokens.create({ id: 'a-token', name: 'first', createdAtMs: 1, revokedAtMs: null }, 'value-a')
        assert.deepEqual(await s.adminTokens.findByToken('value-a'), { id: 'a-token', name: 'first', createdAtMs: 1, revokedAtMs: null })
        assert.equal(await s.adminTokens.findByToken('a-token'), undefined, 'the id is not the token')
        assert.deepEqual((await s.adminTokens.list()).map((t) => t.id), ['a-token', 'b-token'])
        assert.equal(await s.adminTokens.revoke('a-token', 50), true)
        assert.equal(await s.adminTokens.revoke('a-token', 60), false, 'a revoked token is not live')
        assert.equal(await s.adminTokens.revoke('no-such-token', 60), false)
        assert.deepEqual(await s.adminTokens.findByToken('value-a'), { id: 'a-token', name: 'first', createdAtMs: 1, revokedAtMs: 50 })
        assert.equal((await s.adminTokens.findByToken('value-b'))?.revokedAtMs, null)
      }))

    test('users page: in id order, strictly after the cursor, at most the limit; by screen name in any case', () =>
      withStores(async (s) => {
        const users = ['100', '200', '300', '400'].map((id) => userRecord({ id }))
        for (const user of [...users].reverse()) await s.users.create(user)
        const ids = async (query: Parameters<Stores['listings']['usersPage']>[0]) => (await s.listings.usersPage(query)).map((u) => u.id)
        assert.deepEqual(await ids({ limit: 2 }), ['100', '200'])
        assert.deepEqual(await ids({ limit: 2, afterId: '200' }), ['300', '400'])
        assert.deepEqual(await ids({ limit: 10, afterId: '400' }), [])
        assert.deepEqual(await s.listings.usersPage({ limit: 5, screenName: users[2]!.screenName.toUpperCase() }), [users[2]])
        assert.deepEqual(await ids({ limit: 5, screenName: users[2]!.screenName, afterId: '300' }), [])
      }))

    test('apps page: in id order, strictly after the cursor, at most the limit; one owner’s when asked', () =>
      withStores(async (s) => {
        const alice = userRecord()
        const bob = userRecord()
        await s.users.create(alice)
        await s.users.create(bob)
        const apps = [appRecord(alice.id, { id: '10' }), appRecord(bob.id, { id: '20' }), appRecord(alice.id, { id: '30' }), appRecord(alice.id, { id: '40' })]
        for (const app of [...apps].reverse()) await s.apps.create(app)
        const ids = async (query: Parameters<Stores['listings']['appsPage']>[0]) => (await s.listings.appsPage(query)).map((a) => a.id)
        assert.deepEqual(await s.listings.appsPage({ limit: 1 }), [apps[0]], 'the whole app, its secrets opened')
        assert.deepEqual(await ids({ limit: 2, afterId: '10' }), ['20', '30'])
        assert.deepEqual(await ids({ limit: 5, ownerId: alice.id }), ['10', '30', '40'])
        assert.deepEqual(await ids({ limit: 1, ownerId: alice.id, afterId: '10' }), ['30'])
        assert.deepEqual(await ids({ limit: 5, afterId: '40' }), [])
      }))

    test('audit page: newest first, ties by id; each filter keeps only what it names; a page before an event', () =>
      withStores(async (s) => {
        const user = userRecord()
        await s.users.create(user)
        const app = appRecord(user.id)
        await s.apps.create(app)
        await s.audit.record(auditEvent({ atMs: 1000, event: 'app.created', appId: app.id, userId: user.id }))
        await s.audit.record(auditEvent({ atMs: 2000, event: 'app.updated', appId: app.id }))
        await s.audit.record(auditEvent({ atMs: 2000, event: 'user.created', userId: user.id }))
        await s.audit.record(auditEvent({ atMs: 3000, event: 'app.updated', detail: { fields: ['name'] } }))
        const all = await s.listings.auditPage({ limit: 10 })
        assert.deepEqual(
          all.map((e) => [e.atMs, e.event]),
          [
            [3000, 'app.updated'],
            [2000, 'user.created'],
            [2000, 'app.updated'],
            [1000, 'app.created'],
          ],
        )
        assert.ok(all[1]!.id > all[2]!.id, 'the later row of one millisecond first')
        assert.deepEqual(all[0]!.detail, { fields: ['name'] })
        const events = async (query: Parameters<Stores['listings']['auditPage']>[0]) => (await s.listings.auditPage(query)).map((e) => `${e.atMs} ${e.event}`)
        assert.deepEqual(await events({ limit: 2 }), ['3000 app.updated', '2000 user.created'])
        assert.deepEqual(await events({ limit: 10, appId: app.id }), ['2000 app.updated', '1000 app.created'])
        assert.deepEqual(await events({ limit: 10, userId: user.id }), ['2000 user.created', '1000 app.created'])
        assert.deepEqual(await events({ limit: 10, event: 'app.updated' }), ['3000 app.updated', '2000 app.updated'])
        assert.deepEqual(await events({ limit: 10, sinceMs: 2000 }), ['3000 app.updated', '2000 user.created', '2000 app.updated'])
        assert.deepEqual(await events({ limit: 10, untilMs: 2000 }), ['1000 app.created'])
        assert.deepEqual(await events({ limit: 10, sinceMs: 2000, untilMs: 3000 }), ['2000 user.created', '2000 app.updated'])
        const second = all[1]!
        assert.deepEqual(await events({ limit: 10, before: { atMs: second.atMs, id: second.id } }), ['2000 app.updated', '1000 app.created'], 'strictly before, the tie kept')
        assert.deepEqual(await events({ limit: 10, before: { atMs: 3000, id: all[0]!.id + 1000 } }), ['3000 app.updated', '2000 user.created', '2000 app.updated', '1000 app.created'])
      }))

    test('authorizations: the apps a person holds a live access token of, the earliest live token’s time and level; revoking one app’s ends only that', () =>
      withStores(async (s) => {
        const alice = userRecord()
        const bob = userRecord()
        const owner = userRecord()
        for (const user of [alice, bob, owner]) await s.users.create(user)
        const first = appRecord(owner.id, { id: '1', name: 'First' })
        const second = appRecord(owner.id, { id: '2', name: 'Second' })
        const third = appRecord(owner.id, { id: '3', name: 'Third' })
        for (const app of [third, second, first]) await s.apps.create(app)
        await s.accessTokens.issueOrReuse(accessTokenRecord(second.id, alice.id, { accessLevel: 'read-write', createdAtMs: 500 }))
        await s.accessTokens.issueOrReuse(accessTokenRecord(second.id, alice.id, { accessLevel: 'read', createdAtMs: 700 }))
        await s.accessTokens.issueOrReuse(accessTokenRecord(first.id, alice.id, { accessLevel: 'read-write-directmessages', createdAtMs: 900 }))
        await s.accessTokens.issueOrReuse(accessTokenRecord(third.id, alice.id, { createdAtMs: 100, revokedAtMs: 200 }))
        await s.accessTokens.issueOrReuse(accessTokenRecord(third.id, bob.id, { createdAtMs: 300 }))
        assert.deepEqual(await s.listings.authorizations(alice.id), [
          { appId: '1', appName: 'First', accessLevel: 'read-write-directmessages', authorizedAtMs: 900 },
          { appId: '2', appName: 'Second', accessLevel: 'read', authorizedAtMs: 500 },
        ])
        assert.equal(await s.accessTokens.revokeAuthorization(alice.id, second.id, 1000), 2)
        assert.equal(await s.accessTokens.revokeAuthorization(alice.id, second.id, 1100), 0, 'none live any more')
        assert.deepEqual((await s.listings.authorizations(alice.id)).map((a) => a.appId), ['1'])
        assert.deepEqual((await s.listings.authorizations(bob.id)).map((a) => a.appId), ['3'], 'another person’s untouched')
        assert.deepEqual(await s.listings.authorizations(owner.id), [])
      }))

    test('updateUser: only the fields given; ending sessions raises the generation; no field reads the person; an unknown id is undefined', () =>
      withStores(async (s) => {
        const user = userRecord({ name: 'Before' })
        await s.users.create(user)
        assert.deepEqual(await s.users.update(user.id, {}), await s.users.findById(user.id))
        const renamed = await s.users.update(user.id, { name: 'After' })
        assert.equal(renamed?.name, 'After')
        assert.equal(renamed?.passwordHash, user.passwordHash)
        const disabled = await s.users.update(user.id, { disabledAtMs: 77, endSessions: true })
        assert.equal(disabled?.isDisabled, true)
        assert.equal(disabled?.name, 'After')
        assert.equal(disabled?.sessionGeneration, 1)
        const again = await s.users.update(user.id, { passwordHash: 'scrypt$other', endSessions: true })
        assert.equal(again?.sessionGeneration, 2)
        assert.equal(again?.passwordHash, 'scrypt$other')
        assert.equal((await s.users.update(user.id, { disabledAtMs: null }))?.isDisabled, undefined, 'enabled again')
        assert.equal(await s.users.update('no-such-user', { name: 'x' }), undefined)
        assert.equal(await s.users.update('no-such-user', {}), undefined)
      }))

    test('rotateKeys: the new pair; the old one kept until the time given, replacing an older one; tokens revoked only when asked', () =>
      withStores(async (s) => {
        const user = userRecord()
        await s.users.create(user)
        const app = appRecord(user.id)
        const other = appRecord(user.id)
        await s.apps.create(app)
        await s.apps.create(other)
        const access = accessTokenRecord(app.id, user.id)
        const bearer = bearerTokenRecord(app.id)
        const pending = requestTokenRecord(app.id)
        const othersToken = accessTokenRecord(other.id, user.id)
        await s.accessTokens.issueOrReuse(access)
        await s.accessTokens.issueOrReuse(othersToken)
        await s.bearerTokens.issueOrReuse(bearer)
        await s.requestTokens.create(pending)
        const approved = requestTokenRecord(app.id)
        await s.requestTokens.create(approved)
        assert.equal(await s.requestTokens.authorize(approved.token, user.id, 'verifier', 3000), true)

        const second = { consumerKey: 'ck-second', consumerSecret: 'cs-second' }
        const rotated = await s.apps.rotateKeys(app.id, { keys: second, previousValidUntilMs: 5000, revokeTokens: false, nowMs: 4000 })
        assert.deepEqual(rotated, { ...app, ...second, updatedAtMs: 4000 })
        assert.deepEqual(await s.apps.findByConsumerKey('ck-second'), rotated)
        assert.deepEqual(
          await s.apps.findByConsumerKey(app.consumerKey),
          { ...rotated, consumerKey: app.consumerKey, consumerSecret: app.consumerSecret, previousKeyExpiresAtMs: 5000 },
          'the old key finds the app with the old pair, and when it stops working',
        )
        assert.equal((await s.accessTokens.findByToken(access.token))?.revokedAtMs, null, 'tokens kept')
        assert.equal((await s.bearerTokens.findByToken(bearer.token))?.revokedAtMs, null)
        assert.equal((await s.requestTokens.findByToken(pending.token))?.status, 'issued')

        const third = { consumerKey: 'ck-third', consumerSecret: 'cs-third' }
        await s.apps.rotateKeys(app.id, { keys: third, previousValidUntilMs: 9000, revokeTokens: false, nowMs: 6000 })
        assert.equal(await s.apps.findByConsumerKey(app.consumerKey), undefined, 'one previous pair at a time')
        assert.equal((await s.apps.findByConsumerKey('ck-second'))?.previousKeyExpiresAtMs, 9000)

        await s.apps.rotateKeys(app.id, { keys: { consumerKey: 'ck-fourth', consumerSecret: 'cs-fourth' }, revokeTokens: true, nowMs: 7000 })
        assert.equal(await s.apps.findByConsumerKey('ck-third'), undefined, 'without a time, the old pair stops at once')
        assert.equal(await s.apps.findByConsumerKey('ck-second'), undefined)
        assert.equal((await s.accessTokens.findByToken(access.token))?.revokedAtMs, 7000)
        assert.equal((await s.bearerTokens.findByToken(bearer.token))?.revokedAtMs, 7000)
        assert.equal((await s.requestTokens.findByToken(pending.token))?.status, 'dead')
        assert.equal((await s.requestTokens.findByToken(approved.token))?.status, 'dead', 'an approved one too')
        assert.equal((await s.accessTokens.findByToken(othersToken.token))?.revokedAtMs, null, 'another app’s tokens untouched')
        assert.equal(await s.apps.rotateKeys('no-such-app', { keys: third, revokeTokens: true, nowMs: 8000 }), undefined)
      }))

    test('sign-in unlocks: the latest clearing of each key; none asked, none answered', () =>
      withStores(async (s) => {
        await s.signInUnlocks.record('address:192.0.2.1', 100)
        await s.signInUnlocks.record('address:192.0.2.1', 300)
        await s.signInUnlocks.record('person:alice', 200)
        assert.deepEqual(await s.signInUnlocks.latest(['address:192.0.2.1', 'person:alice', 'person:bob']), new Map([
          ['address:192.0.2.1', 300],
          ['person:alice', 200],
        ]))
        assert.deepEqual(await s.signInUnlocks.latest([]), new Map())
      }))
  })
}
