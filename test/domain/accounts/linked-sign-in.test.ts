import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { signInLinked, type UpstreamIdentity } from '../../../src/domain/accounts/linked-sign-in.ts'
import { updateUser } from '../../../src/domain/admin/people.ts'
import { signIn, createSignInThrottle } from '../../../src/domain/sign-in.ts'
import { ServiceError } from '../../../src/errors/service-error.ts'
import { createMemoryLimiterFactory } from '../../../src/storage/memory/limiter.ts'
import { makeUser } from '../../helpers/fixtures.ts'
import { quietObserver } from '../../helpers/recording-observer.ts'
import { openTestDomain, type TestDomain } from '../../helpers/test-domain.ts'

const withCode = (code: number) => (error: unknown) => error instanceof ServiceError && error.code === code
let counter = 0
const identity = (overrides: Partial<UpstreamIdentity> = {}): UpstreamIdentity => ({ provider: 'corp', subject: `sub-${++counter}`, screenNameClaim: `person${counter}`, name: 'A Person', ...overrides })

describe('signInLinked', () => {
  let t: TestDomain
  let deps: Parameters<typeof signInLinked>[0]
  before(async () => {
    t = await openTestDomain()
    deps = { ...t.domain, throttle: createSignInThrottle(createMemoryLimiterFactory(), { signInMaxFailures: 3, signInWindowSeconds: 900 }, t.domain.stores.signInUnlocks) }
  })
  after(() => t.close())

  const trailOf = async (userId: string) => (await t.domain.stores.audit.list({ userId, limit: 20 })).reverse().map((e) => [e.event, e.detail])

  test('a first sign-in creates a person with a screen name from the claim, the name, a verified address and no password; the next finds them', async () => {
    const who = identity({ screenNameClaim: 'grace.hopper@example.org', name: 'Grace Hopper', email: 'grace@example.org', isEmailVerified: true })
    const first = await signInLinked(deps, { identity: who, policy: { create: true }, address: '10.0.0.1', appId: '77' })
    assert.equal(first.screenName, 'grace_hopper')
    assert.equal(first.name, 'Grace Hopper')
    assert.equal(first.email, 'grace@example.org')
    await assert.rejects(signIn(deps, { username: 'grace_hopper', password: '!', address: '10.0.0.1' }), withCode(1107), 'no password signs them in')
    const again = await signInLinked(deps, { identity: { ...who, screenNameClaim: 'someone_else', name: 'Changed' }, policy: { create: true }, address: '10.0.0.1' })
    assert.equal(again.id, first.id)
    assert.equal(again.name, 'Grace Hopper', 'the claims of later sign-ins change nothing')
    const trail = await trailOf(first.id)
    assert.deepEqual(trail.slice(0, 3), [
      ['user.created', { screen_name: 'grace_hopper', provider: 'corp' }],
      ['identity.linked', { provider: 'corp', subject: who.subject }],
      ['sign_in.succeeded', { method: 'corp' }],
    ])
    assert.ok((await t.domain.stores.identityLinks.find('corp', who.subject))!.lastSignInAtMs)
  })

  test('a taken screen name gets a suffix; an unverified address is not kept', async () => {
    await makeUser(t.domain, { screenName: 'taken_name' })
    const user = await signInLinked(deps, { identity: identity({ screenNameClaim: 'Taken-Name', email: 'unverified@example.org', isEmailVerified: false }), policy: { create: true }, address: '10.0.0.2' })
    assert.equal(user.screenName, 'Taken_Name_2', 'the claim keeps its case; the name is taken without regard to case')
    assert.equal(user.email, undefined)
  })

  test('the same identity signing in twice at once makes one person', async () => {
    const who = identity()
    const people = await Promise.all(Array.from({ length: 3 }, () => signInLinked(deps, { identity: who, policy: { create: true }, address: '10.0.0.3' })))
    assert.equal(new Set(people.map((p) => p.id)).size, 1)
  })

  test('a claim that cannot make a screen name is refused and creates no one', async () => {
    const who = identity({ screenNameClaim: '李小龍' })
    await assert.rejects(signInLinked(deps, { identity: who, policy: { create: true }, address: '10.0.0.4' }), withCode(1111))
    assert.equal(await t.domain.stores.identityLinks.find('corp', who.subject), undefined)
  })

  test('matched by e-mail: only a verified address links to its person; an unknown one signs no one in', async () => {
    const { user } = await makeUser(t.domain)
    await t.domain.stores.transaction((tx) => tx.users.create({ ...user, id: `${user.id}9`, screenName: 'matched_person', email: 'match@example.org' }))
    const policy = { matchBy: 'email' } as const
    const unverified = identity({ email: 'match@example.org', isEmailVerified: false })
    await assert.rejects(signInLinked(deps, { identity: unverified, policy, address: '10.0.1.1' }), withCode(1110))
    assert.equal(await t.domain.stores.identityLinks.find('corp', unverified.subject), undefined)
    const stranger = identity({ email: 'nobody@example.org', isEmailVerified: true })
    await assert.rejects(signInLinked(deps, { identity: stranger, policy, address: '10.0.1.2' }), withCode(1110))
    const verified = await signInLinked(deps, { identity: identity({ email: 'MATCH@example.org', isEmailVerified: true }), policy, address: '10.0.1.3' })
    assert.equal(verified.id, `${user.id}9`)
  })

  test('a disabled person is refused whatever the provider says, and the refusal is audited', async () => {
    const who = identity()
    const person = await signInLinked(deps, { identity: who, policy: { create: true }, address: '10.0.2.1' })
    await updateUser(t.domain, person.id, { disabled: true })
    const observe = quietObserver({ signIn: (result) => results.push(result) })
    const results: string[] = []
    await assert.rejects(signInLinked({ ...deps, observe }, { identity: who, policy: { create: true }, address: '10.0.2.1' }), withCode(1110))
    assert.deepEqual(results, ['refused'], 'counted in the metrics as refused, not as a wrong password')
    const trail = await trailOf(person.id)
    assert.deepEqual(trail.at(-1), ['sign_in.failed', { reason: 'credentials', method: 'corp' }])
  })

  test('no typed username spends an identity\'s throttle (its key has a prefix of its own)', async () => {
    const who = identity()
    for (let i = 0; i < 3; i++) await assert.rejects(signIn(deps, { username: `corp:${who.subject}`, password: 'wrong password', address: `10.0.4.${i}` }), withCode(1107))
    const user = await signInLinked(deps, { identity: who, policy: { create: true }, address: '10.0.4.9' })
    assert.ok(user.id)
  })

  test('refusals are throttled per identity like wrong passwords', async () => {
    const stranger = identity({ email: 'nobody2@example.org', isEmailVerified: true })
    for (let i = 0; i < 3; i++) await assert.rejects(signInLinked(deps, { identity: stranger, policy: { matchBy: 'email' }, address: `10.0.3.${i}` }), withCode(1110))
    await assert.rejects(signInLinked(deps, { identity: stranger, policy: { matchBy: 'email' }, address: '10.0.3.9' }), withCode(1108))
  })
})
