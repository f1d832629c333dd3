import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { findUser, revokeAuthorization, revokeBearerToken, updateUser } from '../../../src/domain/admin/people.ts'
import { findUserByIdOrScreenName } from '../../../src/domain/registry/users.ts'
import type { DomainDeps } from '../../../src/domain/deps.ts'
import { handOutBearerToken } from '../../../src/domain/oauth2/bearer-token.ts'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { verifyPassword } from '../../../src/domain/passwords.ts'
import { E } from '../../../src/errors/catalogue.ts'
import type { AccessLevel, AppRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { recordingObserver } from '../../helpers/recording-observer.ts'
import { assertRefusedWith } from '../../helpers/service-refusal.ts'
import { openTestDomain, testClock, type TestDomain } from '../../helpers/test-domain.ts'

// The admin use cases about people (the admin API's users and authorizations, the CLI's `users`,
// the console's revocations), on real storage: what each changes, records and refuses.

const START_MS = Date.UTC(2026, 0, 1)
const clock = testClock(START_MS)
const observer = recordingObserver()
let t: TestDomain
let deps: DomainDeps
before(async () => {
  t = await openTestDomain({ clock })
  deps = { ...t.domain, observe: observer }
})
after(() => t.close())

const allRows = async () => t.domain.stores.audit.list({ limit: 10_000 })
/** The audit rows of this event about this person (or app), oldest first. */
async function rowsOf(event: string, about: { userId?: string; appId?: string }) {
  const rows = (await allRows()).filter((e) => e.event === event && (about.userId === undefined || e.userId === about.userId) && (about.appId === undefined || e.appId === about.appId))
  return rows.reverse()
}
const stored = async (id: string) => (await t.domain.stores.users.findById(id))!
const accessToken = (app: AppRecord, userId: string, accessLevel: AccessLevel = app.accessLevel) =>
  issueOrReuseAccessToken(t.domain, { appId: app.id, userId, accessLevel }, { via: 'owner_token' })
const isRevoked = async (token: string) => (await t.domain.stores.accessTokens.findByToken(token))?.revokedAtMs !== null

describe('findUser', () => {
  test('finds a person by id; 404 code 1004 for an unknown id', async () => {
    const { user } = await makeUser(t.domain)
    assert.deepEqual(await findUser(t.domain, user.id), await stored(user.id))
    await assertRefusedWith(findUser(t.domain, '123456789'), E.notFound, 'no user with id 123456789')
  })
})

describe('findUserByIdOrScreenName', () => {
  test('by id, or by screen name in any case, with a leading @ or surrounding spaces', async () => {
    const { user } = await makeUser(t.domain, { screenName: 'FindMe' })
    for (const ref of [user.id, 'FindMe', 'findme', '@FINDME', '  @findMe\t']) {
      assert.equal((await findUserByIdOrScreenName(t.domain, ref)).id, user.id, ref)
    }
  })

  test('a screen name of digits is found when no one has that id; an id comes first', async () => {
    const { user: digits } = await makeUser(t.domain, { screenName: '31415' })
    assert.equal((await findUserByIdOrScreenName(t.domain, '31415')).id, digits.id)
    // Ids are digits too (15 of them today), so a screen name can be someone's id: the id wins.
    const { user: named } = await makeUser(t.domain, { screenName: digits.id })
    assert.equal((await findUserByIdOrScreenName(t.domain, digits.id)).id, digits.id)
    assert.equal((await findUserByIdOrScreenName(t.domain, `@${digits.id}`)).id, named.id)
  })

  test('404 code 1004 naming the reference when neither finds one', async () => {
    await makeUser(t.domain, { screenName: 'someone' })
    for (const ref of ['nobody', '@nobody', '424242', `${'9'.repeat(21)}`, 'someone@', '@@someone']) {
      await assertRefusedWith(findUserByIdOrScreenName(t.domain, ref), E.notFound, `no user with id or screen name ${ref}`)
    }
    assert.equal((await findUserByIdOrScreenName(t.domain, '@someone')).screenName, 'someone')
  })
})

describe('updateUser', () => {
  test('a new name: trimmed, kept, one audit row naming the field; sessions go on', async () => {
    const { user } = await makeUser(t.domain)
    clock.advance(1000)
    const updated = await updateUser(deps, user.id, { name: '  Ada Lovelace ' })
    assert.deepEqual(updated, { ...(await stored(user.id)), name: 'Ada Lovelace' })
    assert.equal(updated.sessionGeneration ?? 0, 0)
    assert.deepEqual(await rowsOf('user.updated', { userId: user.id }), [
      { atMs: clock.nowMs(), event: 'user.updated', appId: null, userId: user.id, address: null, detail: { fields: ['name'] } },
    ])
  })

  test('a new password: only the new one verifies, it is never kept in clear, and every session ends', async () => {
    const { user, password } = await makeUser(t.domain)
    const updated = await updateUser(deps, user.id, { password: 'a brand new secret' })
    assert.equal(updated.sessionGeneration, 1)
    const hash = (await stored(user.id)).passwordHash
    assert.ok(!hash.includes('a brand new secret'))
    assert.equal(await verifyPassword('a brand new secret', hash), true)
    assert.equal(await verifyPassword(password, hash), false)
    assert.deepEqual((await rowsOf('user.updated', { userId: user.id })).map((e) => e.detail), [{ fields: ['password'], sessions_ended: true }])
  })

  test('disabling ends every session; enabling again brings none back; asking for the state they are in changes nothing', async () => {
    const { user } = await makeUser(t.domain)
    const disabled = await updateUser(deps, user.id, { disabled: true })
    assert.equal(disabled.isDisabled, true)
    assert.equal(disabled.sessionGeneration, 1)
    assert.equal((await stored(user.id)).isDisabled, true)
    // A change of another field leaves them disabled.
    assert.equal((await updateUser(deps, user.id, { name: 'Still Disabled' })).isDisabled, true)
    const again = await updateUser(deps, user.id, { disabled: true })
    assert.equal(again.isDisabled, true)
    assert.equal(again.sessionGeneration, 2, 'each disabling ends the sessions begun since')
    const enabled = await updateUser(deps, user.id, { disabled: false })
    assert.equal(!!enabled.isDisabled, false)
    assert.equal(enabled.sessionGeneration, 2)
    assert.equal(!!(await updateUser(deps, user.id, { name: 'Still Enabled' })).isDisabled, false)
    const stillEnabled = await updateUser(deps, user.id, { disabled: false })
    assert.equal(!!stillEnabled.isDisabled, false)
    assert.deepEqual((await rowsOf('user.updated', { userId: user.id })).map((e) => e.detail), [
      { fields: ['disabled'], disabled: true, sessions_ended: true },
      { fields: ['name'] },
      { fields: ['disabled'], disabled: true, sessions_ended: true },
      { fields: ['disabled'], disabled: false },
      { fields: ['name'] },
      { fields: ['disabled'], disabled: false },
    ])
  })

  test('several fields at once: the row names them in order, never the password', async () => {
    const { user } = await makeUser(t.domain)
    const updated = await updateUser(deps, user.id, { password: 'yet another secret', name: 'Grace', disabled: true })
    assert.equal(updated.name, 'Grace')
    assert.equal(updated.isDisabled, true)
    assert.equal(updated.sessionGeneration, 1, 'ended once, not once per reason')
    const [row] = await rowsOf('user.updated', { userId: user.id })
    assert.deepEqual(row?.detail, { fields: ['disabled', 'name', 'password'], disabled: true, sessions_ended: true })
    assert.ok(!JSON.stringify(row).includes('yet another secret'))
  })

  test('no field: the person as they are, and a row that names no field', async () => {
    const { user } = await makeUser(t.domain)
    assert.deepEqual(await updateUser(deps, user.id, {}), await stored(user.id))
    assert.deepEqual((await rowsOf('user.updated', { userId: user.id })).map((e) => e.detail), [{ fields: [] }])
  })

  test('a name or password breaking the registration rules is refused (400 code 1003) and changes nothing', async () => {
    const cases: Array<[{ name?: string; password?: string }, string, string, { name?: string; password?: string }]> = [
      [{ name: '   ' }, 'name must be 1 to 50 characters', 'name', { name: 'n'.repeat(50) }],
      [{ name: 'n'.repeat(51) }, 'name must be 1 to 50 characters', 'name', { name: 'x' }],
      [{ password: 'seven77' }, 'password must be 8 to 1024 characters', 'password', { password: 'eight888' }],
      [{ password: 'p'.repeat(1025) }, 'password must be 8 to 1024 characters', 'password', { password: 'p'.repeat(1024) }],
    ]
    for (const [broken, message, field, unbroken] of cases) {
      const { user } = await makeUser(t.domain)
      await assertRefusedWith(updateUser(deps, user.id, { ...broken, disabled: true }), E.invalidParameter, message, field)
      assert.deepEqual(await stored(user.id), user, 'nothing changed')
      assert.deepEqual(await rowsOf('user.updated', { userId: user.id }), [])
      await updateUser(deps, user.id, { ...unbroken, disabled: true })
      assert.equal((await stored(user.id)).isDisabled, true)
    }
  })

  test('an unknown person: 404 code 1004, and no row', async () => {
    const before = (await allRows()).length
    await assertRefusedWith(updateUser(deps, '123456789', { name: 'Nobody' }), E.notFound, 'no user with id 123456789')
    assert.equal((await allRows()).length, before)
  })
})

describe('revokeAuthorization', () => {
  test('revokes every live token the person holds of the app, and only those; one row; one count per token', async () => {
    const app = await makeApp(t.domain, { accessLevel: 'read-write' })
    const { user } = await makeUser(t.domain)
    const read = await accessToken(app, user.id, 'read')
    const write = await accessToken(app, user.id, 'read-write')
    const othersToken = await accessToken(app, app.ownerId)
    const otherApp = await makeApp(t.domain)
    const ownTokenOfOtherApp = await accessToken(otherApp, user.id)
    clock.advance(1000)
    observer.told.length = 0
    // The app by its consumer key: the row still names it by id.
    await revokeAuthorization(deps, user.id, app.consumerKey)
    assert.deepEqual([await isRevoked(read.token), await isRevoked(write.token)], [true, true])
    assert.equal((await t.domain.stores.accessTokens.findByToken(read.token))?.revokedAtMs, clock.nowMs())
    assert.deepEqual([await isRevoked(othersToken.token), await isRevoked(ownTokenOfOtherApp.token)], [false, false])
    assert.deepEqual(await rowsOf('authorization.revoked', { userId: user.id }), [
      { atMs: clock.nowMs(), event: 'authorization.revoked', appId: app.id, userId: user.id, address: null, detail: { tokens: 2, grants: 0 } },
    ])
    assert.deepEqual(observer.told, ['invalidated:access_token:admin', 'invalidated:access_token:admin'])
  })

  test('refuses (404 code 1004) an unknown person, an unknown app, and an app the person has not authorized (or no more)', async () => {
    const app = await makeApp(t.domain)
    const { user } = await makeUser(t.domain)
    await assertRefusedWith(revokeAuthorization(deps, '123456789', app.id), E.notFound, 'no user with id 123456789')
    await assertRefusedWith(revokeAuthorization(deps, user.id, 'no-such-key'), E.notFound, 'no app with id or consumer key no-such-key')
    observer.told.length = 0
    await assertRefusedWith(revokeAuthorization(deps, user.id, app.id), E.notFound, `user ${user.id} has not authorized app ${app.id}`)
    assert.deepEqual(observer.told, [])
    // The twin: once authorized, the same call is accepted; then there is nothing left to revoke.
    const { token } = await accessToken(app, user.id)
    await revokeAuthorization(deps, user.id, app.id)
    assert.equal(await isRevoked(token), true)
    await assertRefusedWith(revokeAuthorization(deps, user.id, app.id), E.notFound, `user ${user.id} has not authorized app ${app.id}`)
    assert.equal((await rowsOf('authorization.revoked', { userId: user.id })).length, 1)
  })
})

describe('revokeBearerToken', () => {
  test('revokes the app\'s outstanding bearer token (found by id or consumer key); one row; one count', async () => {
    for (const by of ['id', 'consumerKey'] as const) {
      const app = await makeApp(t.domain)
      const { token } = await handOutBearerToken(t.domain, app.id, null)
      clock.advance(1000)
      observer.told.length = 0
      await revokeBearerToken(deps, app[by])
      assert.equal(await t.domain.stores.bearerTokens.findLive(app.id), undefined)
      assert.equal((await t.domain.stores.bearerTokens.findByToken(token))?.revokedAtMs, clock.nowMs())
      assert.deepEqual(await rowsOf('bearer_token.invalidated', { appId: app.id }), [
        { atMs: clock.nowMs(), event: 'bearer_token.invalidated', appId: app.id, userId: null, address: null, detail: { via: 'admin' } },
      ])
      assert.deepEqual(observer.told, ['invalidated:bearer_token:admin'])
    }
  })

  test('refuses (404 code 1004) an unknown app, and an app with no outstanding bearer token', async () => {
    await assertRefusedWith(revokeBearerToken(deps, 'no-such-key'), E.notFound, 'no app with id or consumer key no-such-key')
    const app = await makeApp(t.domain)
    observer.told.length = 0
    await assertRefusedWith(revokeBearerToken(deps, app.id), E.notFound, `app ${app.id} has no outstanding bearer token`)
    assert.deepEqual(observer.told, [])
    await handOutBearerToken(t.domain, app.id, null)
    await revokeBearerToken(deps, app.id)
    await assertRefusedWith(revokeBearerToken(deps, app.id), E.notFound, `app ${app.id} has no outstanding bearer token`)
    assert.equal((await rowsOf('bearer_token.invalidated', { appId: app.id })).length, 1)
  })
})
