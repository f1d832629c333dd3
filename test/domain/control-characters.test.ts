// Issue 29 (3): no input gives a 5xx on either backend. PostgreSQL refuses U+0000 in text, so a name,
// description, URL or screen name holding one reached it and failed as a server error; SQLite kept
// it. Every text field now refuses control characters as the field's mistake (400, code 1003, the
// field named), and a text that cannot be a screen name finds no one without asking the store.
// The storage tier runs this file on PostgreSQL too.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { findUserByIdOrScreenName } from '../../src/domain/registry/users.ts'
import { listAuditEvents } from '../../src/domain/audit-query.ts'
import { createApp, updateApp } from '../../src/domain/registry/apps.ts'
import { createUser } from '../../src/domain/registry/users.ts'
import { createSignInThrottle, signIn } from '../../src/domain/sign-in.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-domain.ts'

const CONTROLS = ['\u0000', '\u0007', '\u001b', '\u007f', '\u0085']

/** Asserts `work` is refused as a mistake in `field` (400, code 1003), not a server error. */
async function refusedIn(work: Promise<unknown>, field: string): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof ServiceError, `a ServiceError, not ${String(error)}`)
    assert.deepEqual([error.status, error.code, error.field], [400, 1003, field], error.message)
    return true
  })
}

describe('control characters in text fields, on this backend', () => {
  let t: TestDomain
  before(async () => {
    t = await openTestDomain()
  })
  after(() => t.close())

  test('a person\'s name: refused with the field named; the same name without them is taken', async () => {
    for (const control of CONTROLS) {
      await refusedIn(createUser(t.domain, { screenName: 'ctl_user', password: 'long enough', name: `Ada${control}Lovelace` }), 'name')
    }
    assert.equal((await createUser(t.domain, { screenName: 'ctl_user', password: 'long enough', name: 'Ada Lovelace' })).name, 'Ada Lovelace')
  })

  test("an app's name, website and callback URLs: refused with the field named; its description may hold line breaks and tabs only", async () => {
    const { user } = await makeUser(t.domain)
    for (const control of CONTROLS) {
      await refusedIn(createApp(t.domain, { owner: user.id, name: `App${control}` }), 'name')
      await refusedIn(createApp(t.domain, { owner: user.id, name: 'App', description: `one${control}two` }), 'description')
      await refusedIn(createApp(t.domain, { owner: user.id, name: 'App', website: `https://example.com/${control}` }), 'website')
      await refusedIn(createApp(t.domain, { owner: user.id, name: 'App', callbackUrls: [`https://example.com/cb${control}`] }), 'callbackUrls')
    }
    const app = await createApp(t.domain, { owner: user.id, name: 'App', description: 'line one\r\nline two\tand a tab', website: 'https://example.com/' })
    assert.equal(app.description, 'line one\r\nline two\tand a tab')
    await refusedIn(updateApp(t.domain, app.id, { name: 'Renamed\u0000' }), 'name')
    assert.equal((await updateApp(t.domain, app.id, { name: 'Renamed' })).name, 'Renamed')
  })

  test('half of a surrogate pair, which JSON can carry and the database would change into U+FFFD, is refused; a whole pair is kept', async () => {
    const { user } = await makeUser(t.domain)
    for (const lone of ['\ud800', '\udfff', 'x\ud83d', '\ude00x']) {
      await refusedIn(createUser(t.domain, { screenName: 'lone_half', password: 'long enough', name: `Ada${lone}` }), 'name')
      await refusedIn(createApp(t.domain, { owner: user.id, name: `App${lone}` }), 'name')
      await refusedIn(createApp(t.domain, { owner: user.id, name: 'App', description: `text${lone}` }), 'description')
    }
    const app = await createApp(t.domain, { owner: user.id, name: 'Smile \ud83d\ude00', description: 'with \ud83d\ude00' })
    assert.equal((await t.domain.stores.apps.findById(app.id))?.name, 'Smile 😀', 'stored as answered')
  })

  test('an admin token name: refused; without the character it is made', async () => {
    await refusedIn(createAdminToken(t.domain, 'deploy\u0000bot'), 'name')
    assert.equal((await createAdminToken(t.domain, 'deploy bot')).record.name, 'deploy bot')
  })

  test('a screen name holding one finds no one: sign-in is the ordinary refusal, the lookups a 404 or nothing', async () => {
    const { user, password } = await makeUser(t.domain, { screenName: 'ctl_signer' })
    const deps = { ...t.domain, throttle: createSignInThrottle(t.domain.runtime.limiters, t.domain.settings, t.domain.stores.signInUnlocks) }
    await assert.rejects(signIn(deps, { username: 'ctl\u0000signer', password, address: '192.0.2.7' }), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.deepEqual([error.status, error.code], [401, 1107])
      return true
    })
    assert.equal((await signIn(deps, { username: 'ctl_signer', password, address: '192.0.2.8' })).id, user.id)
    await assert.rejects(findUserByIdOrScreenName(t.domain, '\u0000'), (error: unknown) => error instanceof ServiceError && error.status === 404)
    assert.equal((await findUserByIdOrScreenName(t.domain, '@ctl_signer')).id, user.id)
    await refusedOrEmpty(listAuditEvents(t.domain, { user: 'ctl\u0000signer' }))
    await refusedIn(createApp(t.domain, { owner: 'ctl\u0000signer', name: 'Owned' }), 'owner')
    assert.ok(await makeApp(t.domain, { owner: user }))
  })
})

/** An audit query for an unknown person: refused as a client's mistake (4xx), or an empty list. */
async function refusedOrEmpty(work: Promise<unknown[]>): Promise<void> {
  try {
    assert.deepEqual(await work, [])
  } catch (error) {
    assert.ok(error instanceof ServiceError && error.status >= 400 && error.status < 500, String(error))
  }
}
