// The console's and settings pages' use cases (src/domain/console/*) called directly on real
// storage: a person's own apps and the app limit, the apps they authorized, an app's rate-limit
// usage, and changing one's own password. The pages' tests (test/pages/console) check them through HTTP.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { resumeBrowserSession, startBrowserSession } from '../../src/domain/browser-sessions.ts'
import { appUsage } from '../../src/domain/console/app-usage.ts'
import { changeOwnPassword } from '../../src/domain/console/change-password.ts'
import { connectedApps } from '../../src/domain/console/connected-apps.ts'
import { APPS_PER_PAGE, ownedApp, ownedApps } from '../../src/domain/console/owned-apps.ts'
import type { DomainDeps } from '../../src/domain/deps.ts'
import { issueOrReuseAccessToken } from '../../src/domain/oauth1/issue-access-token.ts'
import { verifyPassword } from '../../src/domain/passwords.ts'
import { admitCall } from '../../src/domain/rate-limits.ts'
import { RATE_LIMITED_ENDPOINTS } from '../../src/domain/rate-limit-table.ts'
import { MAX_APPS_PER_OWNER, createApp, deleteApp, updateApp } from '../../src/domain/registry/apps.ts'
import { createSignInThrottle } from '../../src/domain/sign-in.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { createMemoryLimiterFactory } from '../../src/storage/memory/limiter.ts'
import type { UserRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { allowedCode, exchange, oauth2Client } from '../helpers/oauth2-user.ts'
import { openTestDomain, testClock, type TestDomain } from '../helpers/test-domain.ts'

const clock = testClock()
let t: TestDomain
before(async () => {
  t = await openTestDomain({ clock })
})
after(() => t.close())

/** Asserts the promise fails with this service error, as the page would show it. */
async function assertRefused(work: Promise<unknown>, expected: { status: number; code: number; message: string | RegExp; field?: string }): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`)
    assert.equal(error.status, expected.status)
    assert.equal(error.code, expected.code)
    if (typeof expected.message === 'string') assert.equal(error.message, expected.message)
    else assert.match(error.message, expected.message)
    if (expected.field !== undefined) assert.equal(error.field, expected.field)
    return true
  })
}

describe('ownedApps and ownedApp', () => {
  test('a person\'s apps, in id order, and no one else\'s', async () => {
    const { user: owner } = await makeUser(t.domain)
    const first = await makeApp(t.domain, { owner, name: 'First' })
    await makeApp(t.domain, { name: 'Someone else\'s' })
    const second = await makeApp(t.domain, { owner, name: 'Second' })
    assert.deepEqual(await ownedApps(t.domain, owner.id), { apps: [first, second].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)) })
    assert.deepEqual(await ownedApps(t.domain, (await makeUser(t.domain)).user.id), { apps: [] }, 'a person without apps')
  })

  test('one app of its owner; another person\'s app and ids that are no app are the same 404', async () => {
    const { user: owner } = await makeUser(t.domain)
    const { user: stranger } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { owner })
    assert.deepEqual(await ownedApp(t.domain, owner.id, app.id), app)
    const notFound = { status: 404, code: 1004, message: 'no such app' }
    await assertRefused(ownedApp(t.domain, stranger.id, app.id), notFound)
    for (const id of ['999999999999', '', 'abc', `${app.id}x`, ` ${app.id}`, '1'.repeat(21), '-1']) {
      await assertRefused(ownedApp(t.domain, owner.id, id), notFound)
    }
  })
})

describe('the app limit', () => {
  /** Gives `owner` apps up to `count`, written as the store keeps them (createApp's checks would only slow this down). */
  async function fillTo(owner: UserRecord, count: number) {
    const template = await makeApp(t.domain, { owner, name: 'App 1' })
    for (let i = 2; i <= count; i++) {
      assert.ok(await t.domain.stores.apps.create({ ...template, id: t.domain.newId(), name: `App ${i}`, consumerKey: `${template.consumerKey}${i}` }))
    }
  }
  const refusal = { status: 400, code: 1003, message: `a developer may own at most ${MAX_APPS_PER_OWNER} apps`, field: 'owner' }

  test(`a developer may own ${MAX_APPS_PER_OWNER} apps: the last one is created, the next refused with nothing written; others are not counted`, async () => {
    const { user: owner } = await makeUser(t.domain)
    const { user: other } = await makeUser(t.domain)
    await fillTo(owner, MAX_APPS_PER_OWNER - 1)
    await createApp(t.domain, { name: `App ${MAX_APPS_PER_OWNER}`, owner: owner.id })
    const auditRows = (await t.domain.stores.listings.auditPage({ limit: 1000 })).length
    await assertRefused(createApp(t.domain, { name: 'One too many', owner: owner.id }), refusal)
    assert.equal((await t.domain.stores.listings.appsPage({ ownerId: owner.id, limit: 1000 })).length, MAX_APPS_PER_OWNER)
    assert.equal((await t.domain.stores.listings.auditPage({ limit: 1000 })).length, auditRows, 'no audit row for the refused create')
    // Another developer has room: only a person's own apps count (more than 100 apps exist now).
    await createApp(t.domain, { name: 'Room', owner: other.id })
  })

  test('concurrent creates at the limit minus one: exactly one is created, on every backend', async () => {
    const { user: owner } = await makeUser(t.domain)
    await fillTo(owner, MAX_APPS_PER_OWNER - 1)
    const results = await Promise.allSettled(Array.from({ length: 16 }, (_, i) => createApp(t.domain, { name: `Race ${i}`, owner: owner.id })))
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'one create wins')
    for (const result of results.filter((r) => r.status === 'rejected')) {
      assert.ok(result.reason instanceof ServiceError && result.reason.field === 'owner', String(result.reason))
    }
    assert.equal((await t.domain.stores.listings.appsPage({ ownerId: owner.id, limit: 1000 })).length, MAX_APPS_PER_OWNER)
  })

  test('an operator who says so registers an app beyond the limit; the console lists every app, a page at a time', async () => {
    const { user: owner } = await makeUser(t.domain)
    await fillTo(owner, MAX_APPS_PER_OWNER)
    const beyond = await createApp(t.domain, { name: 'Beyond', owner: owner.id }, { beyondAppLimit: true })
    await assertRefused(createApp(t.domain, { name: 'Still refused', owner: owner.id }), refusal)
    const first = await ownedApps(t.domain, owner.id)
    assert.equal(first.apps.length, APPS_PER_PAGE)
    assert.equal(first.nextAfter, first.apps.at(-1)!.id)
    const second = await ownedApps(t.domain, owner.id, first.nextAfter)
    assert.deepEqual(second, { apps: [beyond] }, 'the next page starts after the last one shown, and is the last')
  })
})

describe('connectedApps', () => {
  const grant = (appId: string, userId: string, accessLevel: 'read' | 'read-write' = 'read') =>
    issueOrReuseAccessToken(t.domain, { appId, userId, accessLevel }, { via: 'exchange' })

  test('every app the person holds a live token of, with its owner\'s name, in app id order', async () => {
    const { user } = await makeUser(t.domain)
    const { user: owner } = await makeUser(t.domain, { name: 'Olive Owner' })
    const { user: otherOwner } = await makeUser(t.domain, { name: 'Oscar Other' })
    const first = await makeApp(t.domain, { owner, name: 'Cal App' })
    const second = await makeApp(t.domain, { owner: otherOwner, name: 'Notes' })
    const revoked = await makeApp(t.domain, { name: 'Revoked' })
    const notMine = await makeApp(t.domain, { name: 'Not mine' })
    const firstAt = clock.nowMs()
    await grant(first.id, user.id)
    clock.advance(1000)
    await grant(second.id, user.id, 'read-write')
    const token = await grant(revoked.id, user.id)
    await t.domain.stores.accessTokens.revoke(token.token, clock.nowMs())
    await grant(notMine.id, (await makeUser(t.domain)).user.id)
    const expected = [
      { appId: first.id, appName: 'Cal App', accessLevel: 'read', authorizedAtMs: firstAt, owner: { name: 'Olive Owner', screenName: owner.screenName } },
      { appId: second.id, appName: 'Notes', accessLevel: 'read-write', authorizedAtMs: firstAt + 1000, owner: { name: 'Oscar Other', screenName: otherOwner.screenName } },
    ].sort((a, b) => (BigInt(a.appId) < BigInt(b.appId) ? -1 : 1))
    assert.deepEqual(await connectedApps(t.domain, user.id), expected)
    assert.deepEqual(await connectedApps(t.domain, (await makeUser(t.domain)).user.id), [], 'a person who authorized nothing')
  })

  test("an OAuth 2.0 grant's scopes as its app may use them now: lowered to read, no write scope", async () => {
    const { user } = await makeUser(t.domain)
    const client = await oauth2Client(t.domain)
    await exchange(t.domain, client, await allowedCode(t.domain, client, user, 'tweet.read tweet.write users.read'))
    const scopesListed = async () => (await connectedApps(t.domain, user.id)).map((app) => app.scopes)
    assert.deepEqual(await scopesListed(), [['tweet.read', 'tweet.write', 'users.read']])
    await updateApp(t.domain, client.app.id, { accessLevel: 'read' })
    assert.deepEqual(await scopesListed(), [['tweet.read', 'users.read']])
  })

  test('an app deleted while the list is read is listed without an owner, not an error', async () => {
    const { user } = await makeUser(t.domain)
    const { user: owner } = await makeUser(t.domain, { name: 'Dora Deleter' })
    const app = await makeApp(t.domain, { owner, name: 'Going Away' })
    await grant(app.id, user.id)
    // The deletion lands between reading the person's authorizations and reading the app.
    const racing: DomainDeps = {
      ...t.domain,
      stores: {
        ...t.domain.stores,
        listings: {
          ...t.domain.stores.listings,
          authorizations: async (userId) => {
            const found = await t.domain.stores.listings.authorizations(userId)
            await deleteApp(t.domain, app.id)
            return found
          },
        },
      },
    }
    const [listed, ...more] = await connectedApps(racing, user.id)
    assert.equal(more.length, 0)
    assert.deepEqual({ appId: listed?.appId, appName: listed?.appName, owner: listed?.owner }, { appId: app.id, appName: 'Going Away', owner: undefined })
  })
})

describe('appUsage', () => {
  // The app's own budgets: every row of the rate-limit table but the consent pages, counted per address.
  const appBudgets = [
    '/oauth/request_token',
    '/oauth/access_token',
    '/oauth/invalidate_token',
    '/oauth2/token',
    '/oauth2/invalidate_token',
    '/oauth2/introspect',
    '/account/verify_credentials',
    '/2/oauth2/token',
    '/2/oauth2/revoke',
    '/2/users/me',
    '/application/rate_limit_status',
    '/latchkey/check-request',
    '/latchkey/resource-api',
    '/latchkey/forward-auth',
  ]

  test('the list above is the rate-limit table without the pages counted per address', () => {
    assert.deepEqual(appBudgets, RATE_LIMITED_ENDPOINTS.filter((endpoint) => endpoint.countedBy !== 'address').map((endpoint) => endpoint.resource))
    assert.deepEqual(RATE_LIMITED_ENDPOINTS.filter((endpoint) => endpoint.countedBy === 'address').map((endpoint) => endpoint.resource), ['/oauth/authorize', '/oauth/authenticate', '/i/oauth2/authorize'])
  })

  test('each endpoint of the app\'s own budget with its limit, what is left and what was used', async () => {
    const app = await makeApp(t.domain)
    const nowSeconds = Math.floor(Date.now() / 1000)
    for (let i = 0; i < 3; i++) await admitCall(t.domain, '/oauth/request_token', { appId: app.id })
    await admitCall(t.domain, '/oauth2/token', { appId: app.id })
    // An app-only call spends the app's budget; a call with a person's token spends theirs, not the app's.
    await admitCall(t.domain, '/account/verify_credentials', { appId: app.id })
    await admitCall(t.domain, '/account/verify_credentials', { appId: app.id, userId: app.ownerId })
    // Another app's calls are its own.
    await admitCall(t.domain, '/oauth/access_token', { appId: (await makeApp(t.domain)).id })

    const usage = await appUsage(t.domain, app)
    // In the table's order, without /oauth/authorize and /oauth/authenticate (counted per address).
    assert.deepEqual(usage.map((row) => row.resource), appBudgets)
    const used = Object.fromEntries(usage.map((row) => [row.resource, [row.limit, row.remaining, row.used]]))
    assert.deepEqual(used, {
      '/oauth/request_token': [300, 297, 3],
      '/oauth/access_token': [300, 300, 0],
      '/oauth/invalidate_token': [300, 300, 0],
      '/oauth2/token': [60, 59, 1],
      '/oauth2/invalidate_token': [300, 300, 0],
      '/oauth2/introspect': [1800, 1800, 0],
      '/account/verify_credentials': [75, 74, 1],
      '/2/oauth2/token': [300, 300, 0],
      '/2/oauth2/revoke': [300, 300, 0],
      '/2/users/me': [75, 75, 0],
      '/application/rate_limit_status': [180, 180, 0],
      '/latchkey/check-request': [45000, 45000, 0],
      '/latchkey/resource-api': [900, 900, 0],
      // Forward auth charges no app: its row limits failures per client address only.
      '/latchkey/forward-auth': [1800, 1800, 0],
    })
    for (const row of usage) {
      assert.ok(Number.isInteger(row.reset) && row.reset >= nowSeconds, `${row.resource}: the window's end in epoch seconds`)
      assert.deepEqual(Object.keys(row).sort(), ['limit', 'remaining', 'reset', 'resource', 'used'])
    }
  })

  test('an endpoint the domain has no limiter for is left out', async () => {
    const app = await makeApp(t.domain)
    const without = new Map([...t.domain.limiters.endpoints].filter(([resource]) => resource !== '/oauth2/introspect'))
    const usage = await appUsage({ limiters: { endpoints: without } }, app)
    assert.deepEqual(usage.map((row) => row.resource), appBudgets.filter((resource) => resource !== '/oauth2/introspect'))
    assert.deepEqual(await appUsage({ limiters: { endpoints: new Map() } }, app), [])
  })
})

describe('changeOwnPassword', () => {
  const throttle = () => createSignInThrottle(createMemoryLimiterFactory(), { signInMaxFailures: 2, signInWindowSeconds: 900 }, t.domain.stores.signInUnlocks)
  const NEW = 'a brand new passphrase'

  /** A person with two live browser sessions. */
  async function personWithSessions() {
    const { user, password } = await makeUser(t.domain)
    const sessions = [
      await startBrowserSession(t.domain, { user, userAgent: 'one', address: '192.0.2.20' }),
      await startBrowserSession(t.domain, { user, userAgent: 'two', address: '192.0.2.21' }),
    ]
    return { user, password, sessions }
  }

  const events = async (user: UserRecord) => (await t.domain.stores.audit.list({ userId: user.id, limit: 100 })).reverse()
  const stored = async (user: UserRecord) => (await t.domain.stores.users.findById(user.id))!

  /** Nothing changed: the old password, the generation and the sessions are as they were. */
  async function assertUnchanged(person: Awaited<ReturnType<typeof personWithSessions>>) {
    const row = await stored(person.user)
    assert.equal(row.passwordHash, person.user.passwordHash)
    assert.equal(row.sessionGeneration, undefined)
    for (const claim of person.sessions) assert.ok(await resumeBrowserSession(t.domain, claim))
    assert.ok(!(await events(person.user)).some((e) => e.event === 'user.updated'))
  }

  test('the right current password: the new hash, every session ended, one audit row; the returned person is the stored one', async () => {
    const person = await personWithSessions()
    const { user, password, sessions } = person
    const updated = await changeOwnPassword({ ...t.domain, throttle: throttle() }, { user, current: password, next: NEW, address: '203.0.113.9' })
    assert.deepEqual(updated, await stored(user))
    assert.equal(updated.id, user.id)
    assert.equal(updated.sessionGeneration, 1, 'the generation is raised')
    assert.equal(await verifyPassword(NEW, updated.passwordHash), true)
    assert.equal(await verifyPassword(password, updated.passwordHash), false)
    for (const claim of sessions) assert.equal(await resumeBrowserSession(t.domain, claim), undefined, 'the session in use too')
    const trail = (await events(user)).filter((e) => e.event !== 'user.created')
    assert.deepEqual(
      trail.map((e) => ({ event: e.event, userId: e.userId, address: e.address, detail: e.detail })),
      [
        { event: 'sign_in.succeeded', userId: user.id, address: '203.0.113.9', detail: { step: 'confirm' } },
        { event: 'user.updated', userId: user.id, address: '203.0.113.9', detail: { fields: ['password'], sessions_ended: true } },
      ],
    )
  })

  test('a wrong current password is refused as a sign-in is (401, code 1107) and changes nothing; the right one is accepted', async () => {
    const person = await personWithSessions()
    const deps = { ...t.domain, throttle: throttle() }
    const input = { user: person.user, current: 'not the password', next: NEW, address: '203.0.113.10' }
    await assertRefused(changeOwnPassword(deps, input), { status: 401, code: 1107, message: 'The username or password is not right.' })
    await assertUnchanged(person)
    const failed = (await events(person.user)).filter((e) => e.event === 'sign_in.failed')
    assert.deepEqual(failed.map((e) => e.detail), [{ reason: 'credentials', step: 'confirm' }])
    assert.equal((await changeOwnPassword(deps, { ...input, current: person.password })).sessionGeneration, 1)
  })

  test('a new password the registration refuses (7 or 1025 characters) is refused before the current one is checked', async () => {
    const person = await personWithSessions()
    const deps = { ...t.domain, throttle: throttle() }
    const refusal = { status: 400, code: 1003, message: 'password must be 8 to 1024 characters', field: 'password' }
    // A wrong current password too: the new one's refusal comes first, and no attempt is counted.
    for (let i = 0; i < 3; i++) {
      for (const next of ['7 chars', 'x'.repeat(1025)]) {
        await assertRefused(changeOwnPassword(deps, { user: person.user, current: 'wrong password', next, address: 'a' }), refusal)
      }
    }
    await assertUnchanged(person)
    assert.ok(!(await events(person.user)).some((e) => e.event.startsWith('sign_in.')), 'the current password was not checked')
    const updated = await changeOwnPassword(deps, { user: person.user, current: person.password, next: '8 chars!', address: 'a' })
    assert.equal(await verifyPassword('8 chars!', updated.passwordHash), true)
  })

  test('after the sign-in throttle\'s failures even the right current password is refused (429, code 1108)', async () => {
    const person = await personWithSessions()
    const deps = { ...t.domain, throttle: throttle() }
    const input = { user: person.user, current: person.password, next: NEW, address: '203.0.113.11' }
    for (let i = 0; i < 2; i++) await assertRefused(changeOwnPassword(deps, { ...input, current: 'wrong password' }), { status: 401, code: 1107, message: /not right/ })
    await assertRefused(changeOwnPassword(deps, input), { status: 429, code: 1108, message: /Too many attempts/ })
    await assertUnchanged(person)
    // The same change with a throttle that has not counted those failures is accepted.
    assert.equal((await changeOwnPassword({ ...t.domain, throttle: throttle() }, input)).sessionGeneration, 1)
  })
})
