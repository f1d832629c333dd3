import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
import { after, before, describe, mock, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { dummyPasswordHash } from '../../src/domain/passwords.ts'
import { updateUser } from '../../src/domain/admin/people.ts'
import type { DomainObserver } from '../../src/domain/observe.ts'
import { confirmPassword, createSignInThrottle, normalizeUsername, signIn, unlockSignIn, type SignInKeys, type SignInThrottle } from '../../src/domain/sign-in.ts'
import { createMemoryLimiterFactory } from '../../src/storage/memory/limiter.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { makeUser } from '../helpers/fixtures.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-domain.ts'

/** A throttle that records what it was told and blocks on demand. */
function fakeThrottle() {
  const calls: string[] = []
  let blocked = false
  const throttle: SignInThrottle = {
    async admit(keys: SignInKeys) {
      calls.push(`admit ${keys.account} ${keys.address}`)
      return !blocked
    },
    async succeeded(keys: SignInKeys) {
      calls.push(`succeeded ${keys.account} ${keys.address}`)
    },
    async refusal(keys: SignInKeys) {
      calls.push(`refusal ${keys.account} ${keys.address}`)
      return { waitMs: 0, isFirst: true }
    },
  }
  return { throttle, calls, block: () => void (blocked = true) }
}

const withCode = (code: number) => (error: unknown) => error instanceof ServiceError && error.code === code

describe('signIn', () => {
  let t: TestDomain
  before(async () => {
    t = await openTestDomain()
  })
  after(() => t.close())

  test('the right password signs the person in and forgets their account failures', async () => {
    const { user, password } = await makeUser(t.domain, { screenName: 'Ada_L' })
    const { throttle, calls } = fakeThrottle()
    const signedIn = await signIn({ ...t.domain, throttle }, { username: ' @ada_l ', password, address: '10.0.0.1' })
    assert.equal(signedIn.id, user.id)
    assert.deepEqual(calls, ['admit ada_l 10.0.0.1', 'succeeded ada_l 10.0.0.1'])
  })

  test('people signing in at once behind one address with the right passwords never lock it (issue 29, 8)', async () => {
    const deps = { ...t.domain, throttle: createSignInThrottle(t.domain.runtime.limiters, t.domain.settings, t.domain.stores.signInUnlocks) }
    const people = await Promise.all(Array.from({ length: 6 }, () => makeUser(t.domain)))
    const burst = () =>
      Promise.all(people.map(({ user, password }) => signIn(deps, { username: user.screenName, password, address: '198.51.100.23' }).then(() => 'in', () => 'refused')))
    const first = await burst()
    assert.ok(first.filter((r) => r === 'in').length >= 5, `at most the one over the limit in flight is refused: ${first}`)
    const second = await Promise.all(people.slice(0, 5).map(({ user, password }) => signIn(deps, { username: user.screenName, password, address: '198.51.100.23' }).then(() => 'in', () => 'refused')))
    assert.deepEqual(second, ['in', 'in', 'in', 'in', 'in'], 'nothing of the first burst was left counted')
  })

  test('the trail keeps the address and the app of the consent page, for a success and a failure', async () => {
    const { user, password } = await makeUser(t.domain)
    const deps = { ...t.domain, throttle: fakeThrottle().throttle }
    await assert.rejects(signIn(deps, { username: user.screenName, password: 'not-the-password', address: '10.9.8.7', appId: '4242' }), withCode(1107))
    await signIn(deps, { username: user.screenName, password, address: '10.9.8.6', appId: '4242' })
    const trail = (await t.domain.stores.audit.list({ userId: user.id, limit: 10 })).reverse().filter((e) => e.event.startsWith('sign_in'))
    assert.deepEqual(
      trail.map((e) => [e.event, e.address, e.appId]),
      [
        ['sign_in.failed', '10.9.8.7', '4242'],
        ['sign_in.succeeded', '10.9.8.6', '4242'],
      ],
    )
  })

  test('a wrong password and an unknown user get the same answer and both count as a failure', async () => {
    const { user } = await makeUser(t.domain)
    const { throttle, calls } = fakeThrottle()
    const deps = { ...t.domain, throttle }
    const wrong = await signIn(deps, { username: user.screenName, password: 'not-the-password', address: 'a' }).catch((e) => e)
    const unknown = await signIn(deps, { username: 'nobody_here', password: 'whatever1', address: 'a' }).catch((e) => e)
    for (const error of [wrong, unknown]) {
      assert.ok(withCode(1107)(error))
      assert.equal(error.status, 401)
      assert.equal(error.message, 'The username or password is not right.')
    }
    // Both attempts were counted before the check and neither was given back.
    assert.deepEqual(calls, [`admit ${user.screenName.toLowerCase()} a`, 'admit nobody_here a'])
  })

  test('an unknown account costs the same password hash as a wrong password (no early answer to time)', async () => {
    const { user } = await makeUser(t.domain)
    const deps = { ...t.domain, throttle: fakeThrottle().throttle }
    await dummyPasswordHash()
    const hashes = mock.method(crypto, 'scrypt')
    syncBuiltinESMExports()
    try {
      const count = async (username: string) => {
        hashes.mock.resetCalls()
        assert.ok(withCode(1107)(await signIn(deps, { username, password: 'not-the-password', address: 'c' }).catch((e) => e)))
        return hashes.mock.callCount()
      }
      const known = await count(user.screenName)
      assert.equal(known, 1)
      assert.equal(await count('nobody_at_all'), known)
    } finally {
      hashes.mock.restore()
      syncBuiltinESMExports()
    }
  })

  test('a blocked account or address is refused with 429 before the password is checked, even the right one', async () => {
    const { user, password } = await makeUser(t.domain)
    const { throttle, calls, block } = fakeThrottle()
    block()
    await assert.rejects(signIn({ ...t.domain, throttle }, { username: user.screenName, password, address: 'b' }), (error) => {
      return withCode(1108)(error) && (error as ServiceError).status === 429
    })
    assert.deepEqual(calls, [`admit ${user.screenName.toLowerCase()} b`, `refusal ${user.screenName.toLowerCase()} b`])
  })

  test('a refusal says how long to wait; of many refused attempts from one address, one is in the trail (issue 29, 8 and 10)', async () => {
    const deps = { ...t.domain, throttle: createSignInThrottle(createMemoryLimiterFactory(), { signInMaxFailures: 2, signInWindowSeconds: 900 }, t.domain.stores.signInUnlocks) }
    const address = '192.0.2.77'
    const attempt = () => signIn(deps, { username: 'nobody_here', password: 'wrong password', address })
    for (let i = 0; i < 2; i++) await assert.rejects(attempt(), withCode(1107))
    for (let i = 0; i < 30; i++) {
      await assert.rejects(attempt(), (error: unknown) => {
        assert.ok(error instanceof ServiceError && error.code === 1108, String(error))
        assert.equal(error.publicMessage, 'Too many attempts to sign in. Please try again in 15 minutes.')
        return true
      })
    }
    const rows = (await t.domain.stores.audit.list({ limit: 1000 })).filter((e) => e.event === 'sign_in.failed' && e.address === address)
    assert.deepEqual(rows.map((e) => (e.detail as { reason: string }).reason), ['throttled', 'credentials', 'credentials'], 'two failures and one refusal')
  })
})

describe('confirmPassword (the password asked again before a sensitive page)', () => {
  let t: TestDomain
  before(async () => {
    t = await openTestDomain()
  })
  after(() => t.close())

  /** What the observer heard of sign-ins and throttling. */
  function signInObserver() {
    const heard: string[] = []
    const observer = {
      signIn: (result: string) => void heard.push(`signIn ${result}`),
      rateLimited: (resource: string, subject: string) => void heard.push(`rateLimited ${resource} ${subject}`),
    } as unknown as DomainObserver
    return { observer, heard }
  }
  const trailOf = async (userId: string) =>
    (await t.domain.stores.audit.list({ userId, limit: 10 })).reverse().map((e) => ({ event: e.event, address: e.address, appId: e.appId, detail: e.detail }))

  test('the right password passes, counted on the lowercased account and the address, then forgiven; the trail says it was a confirmation', async () => {
    const { user, password } = await makeUser(t.domain, { screenName: 'Sudo_Ok' })
    const { throttle, calls } = fakeThrottle()
    const { observer, heard } = signInObserver()
    await confirmPassword({ ...t.domain, throttle, observe: observer }, { user, password, address: '10.0.0.9' })
    assert.deepEqual(calls, ['admit sudo_ok 10.0.0.9', 'succeeded sudo_ok 10.0.0.9'])
    assert.deepEqual(heard, ['signIn ok'])
    const trail = (await trailOf(user.id)).filter((e) => e.event.startsWith('sign_in'))
    assert.deepEqual(trail, [{ event: 'sign_in.succeeded', address: '10.0.0.9', appId: null, detail: { step: 'confirm' } }])
  })

  test('a wrong password is refused as a sign-in is (401 code 1107), counted and not forgiven, and audited as a failed confirmation', async () => {
    const { user, password } = await makeUser(t.domain)
    const { throttle, calls } = fakeThrottle()
    const { observer, heard } = signInObserver()
    const deps = { ...t.domain, throttle, observe: observer }
    await assert.rejects(confirmPassword(deps, { user, password: `${password}x`, address: 'w' }), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.deepEqual([error.status, error.code], [401, 1107])
      return true
    })
    assert.deepEqual(calls, [`admit ${user.screenName.toLowerCase()} w`])
    assert.deepEqual(heard, ['signIn wrong_password'])
    const trail = (await trailOf(user.id)).filter((e) => e.event.startsWith('sign_in'))
    assert.deepEqual(trail, [{ event: 'sign_in.failed', address: 'w', appId: null, detail: { reason: 'credentials', step: 'confirm' } }])
    await confirmPassword(deps, { user, password, address: 'w' })
  })

  test('the password that counts is the one stored now, not the one of the record the page holds', async () => {
    const { user, password } = await makeUser(t.domain)
    const deps = { ...t.domain, throttle: fakeThrottle().throttle }
    await updateUser(t.domain, user.id, { password: 'changed-elsewhere-1' })
    await assert.rejects(confirmPassword(deps, { user, password, address: 'c' }), withCode(1107))
    await confirmPassword(deps, { user, password: 'changed-elsewhere-1', address: 'c' })
  })

  test('a disabled person, or one that does not exist, is refused like a wrong password', async () => {
    const { user, password } = await makeUser(t.domain)
    const deps = { ...t.domain, throttle: fakeThrottle().throttle }
    await confirmPassword(deps, { user, password, address: 'd' })
    await updateUser(t.domain, user.id, { disabled: true })
    await assert.rejects(confirmPassword(deps, { user, password, address: 'd' }), withCode(1107))
    await assert.rejects(confirmPassword(deps, { user: { ...user, id: '999999999' }, password, address: 'd' }), withCode(1107))
  })

  test('a blocked account is refused with 429 code 1108 before the password is checked, even the right one, and the trail says so', async () => {
    const { user, password } = await makeUser(t.domain)
    const { throttle, calls, block } = fakeThrottle()
    const { observer, heard } = signInObserver()
    block()
    await assert.rejects(confirmPassword({ ...t.domain, throttle, observe: observer }, { user, password, address: 'b' }), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.deepEqual([error.status, error.code], [429, 1108])
      return true
    })
    assert.deepEqual(calls, [`admit ${user.screenName.toLowerCase()} b`, `refusal ${user.screenName.toLowerCase()} b`])
    assert.deepEqual(heard, ['signIn throttled', 'rateLimited sign_in sign_in'])
    const failed = (await t.domain.stores.audit.list({ limit: 100 })).filter((e) => e.event === 'sign_in.failed' && e.address === 'b')
    assert.deepEqual(
      failed.map((e) => [e.userId, e.detail]),
      [[null, { reason: 'throttled', step: 'confirm' }]],
    )
  })
})

describe('the sign-in throttle on the stores\' limiters', () => {
  let stores: TestDomain
  before(async () => {
    stores = await openTestDomain()
  })
  after(() => stores.close())
  const throttleOf = (signInMaxFailures: number, signInWindowSeconds: number) =>
    createSignInThrottle(createMemoryLimiterFactory(), { signInMaxFailures, signInWindowSeconds }, stores.domain.stores.signInUnlocks)

  test("an operator's unlock clears a blocked account, or address, at its next attempt; not a block that began after it", async () => {
    const throttle = throttleOf(1, 600)
    const { user } = await makeUser(stores.domain)
    const ann = { account: user.screenName, address: '203.0.113.5' }
    assert.equal(await throttle.admit(ann), true)
    assert.equal(await throttle.admit(ann), false, 'blocked')
    await unlockSignIn(stores.domain, { user })
    await unlockSignIn(stores.domain, { address: '203.0.113.5' })
    // Times are compared to the millisecond, a block beginning in the unlock's own one counting as
    // cleared: the new block below must begin in a later one.
    await new Promise((resolve) => setTimeout(resolve, 2))
    assert.equal(await throttle.admit(ann), true, 'unlocked: the next attempt counts afresh')
    assert.equal(await throttle.admit(ann), false, 'the unlock was before this block began: it stays')
    const other = { account: 'someone_else', address: '2001:db8:7:7::1' }
    assert.equal(await throttle.admit(other), true)
    assert.equal(await throttle.admit({ ...other, account: 'third' }), false, 'the address is used up')
    await unlockSignIn(stores.domain, { address: '2001:db8:7:7::99' })
    assert.equal(await throttle.admit({ ...other, account: 'third' }), true, 'an address is unlocked as its budget (its /64)')
    const trail = await stores.domain.stores.audit.list({ limit: 3 })
    assert.deepEqual(trail.map((row) => [row.event, row.detail]).reverse(), [
      ['sign_in.unlocked', { account: user.screenName }],
      ['sign_in.unlocked', { address: '203.0.113.5' }],
      ['sign_in.unlocked', { address: '2001:db8:7:7::99' }],
    ])
  })

  test('admits an account or an address up to the limit, each on its own', async () => {
    const throttle = throttleOf(3, 60)
    for (let i = 0; i < 3; i++) assert.equal(await throttle.admit({ account: 'ann', address: `a${i}` }), true)
    assert.equal(await throttle.admit({ account: 'ann', address: 'fresh' }), false, 'the account is used up')
    assert.equal(await throttle.admit({ account: 'bob', address: 'a0' }), true, 'address a0 has 2 left')
  })

  test('parallel guesses cannot slip past: of 20 at once only the limit is admitted', async () => {
    const throttle = throttleOf(5, 60)
    const admitted = await Promise.all(Array.from({ length: 20 }, () => throttle.admit({ account: 'ann', address: 'x' })))
    assert.equal(admitted.filter(Boolean).length, 5)
  })

  test('a success forgets the account and gives the address its attempt back', async () => {
    const throttle = throttleOf(2, 60)
    await throttle.admit({ account: 'ann', address: 'x' })
    await throttle.admit({ account: 'ann', address: 'x' })
    await throttle.succeeded({ account: 'ann', address: 'x' })
    assert.equal(await throttle.admit({ account: 'ann', address: 'y' }), true)
    assert.equal(await throttle.admit({ account: 'bob', address: 'x' }), true, 'x has one attempt back')
    assert.equal(await throttle.admit({ account: 'bob', address: 'x' }), false)
  })

  test('refused attempts are not counted: once the attempts in flight are done, only failures remain (issue 29, 8)', async () => {
    const throttle = throttleOf(5, 60)
    const inOffice = (i: number) => ({ account: `person${i}`, address: 'office' })
    const admitted = await Promise.all(Array.from({ length: 8 }, (_, i) => throttle.admit(inOffice(i))))
    assert.equal(admitted.filter(Boolean).length, 5, 'five in flight at once, as before')
    await Promise.all(admitted.map((ok, i) => (ok ? throttle.succeeded(inOffice(i)) : undefined)))
    const again = await Promise.all(Array.from({ length: 5 }, (_, i) => throttle.admit(inOffice(10 + i))))
    assert.deepEqual(again, [true, true, true, true, true], 'the office has every attempt back: the refused three counted nothing')
    // The twin: failures do count. The five above end without success, and the address is used up.
    assert.equal(await throttle.admit(inOffice(20)), false)
  })

  test('a refusal tells how long the used-up key stays blocked, and whether it is the address\'s first of the window', async () => {
    const throttle = throttleOf(1, 600)
    assert.equal(await throttle.admit({ account: 'ann', address: 'x' }), true)
    assert.equal(await throttle.admit({ account: 'ann', address: 'x' }), false)
    const first = await throttle.refusal({ account: 'ann', address: 'x' })
    assert.ok(first.waitMs > 590_000 && first.waitMs <= 600_000, String(first.waitMs))
    assert.equal(first.isFirst, true)
    assert.equal((await throttle.refusal({ account: 'ann', address: 'x' })).isFirst, false)
    assert.equal((await throttle.refusal({ account: 'bob', address: 'y' })).isFirst, true, 'another address has its own first')
    assert.equal((await throttle.refusal({ account: 'bob', address: 'y' })).waitMs, 0, 'nothing of bob or y is used up')
  })

  test('an address counts as one however it is written: IPv4-mapped IPv6 is its IPv4 address, IPv6 counts per /64', async () => {
    const throttle = throttleOf(3, 60)
    for (const address of ['198.51.100.99', '::ffff:198.51.100.99', '::ffff:c633:6463']) {
      assert.equal(await throttle.admit({ account: `acct_${address}`, address }), true)
    }
    assert.equal(await throttle.admit({ account: 'fresh', address: '198.51.100.99' }), false, 'three forms, one budget')
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:fffe', '2001:0db8:0001:0002::9']) {
      assert.equal(await throttle.admit({ account: `acct_${address}`, address }), true)
    }
    assert.equal(await throttle.admit({ account: 'fresh6', address: '2001:db8:1:2::abcd' }), false, 'one /64, one budget')
    assert.equal(await throttle.admit({ account: 'fresh6', address: '2001:db8:1:3::1' }), true, 'the next /64 has its own')
  })

  test('lets the account in again when the window ends', async () => {
    const throttle = throttleOf(1, 1)
    await throttle.admit({ account: 'ann', address: 'x' })
    assert.equal(await throttle.admit({ account: 'ann', address: 'x' }), false)
    await sleep(1100)
    assert.equal(await throttle.admit({ account: 'ann', address: 'x' }), true)
  })
})

describe('normalizeUsername', () => {
  test('drops surrounding spaces and one leading @, nothing else', () => {
    assert.equal(normalizeUsername('  @ann '), 'ann')
    assert.equal(normalizeUsername('ann'), 'ann')
    assert.equal(normalizeUsername('@@ann'), '@ann')
    // An @ elsewhere stays, so "a@nn" never signs in as ann.
    assert.equal(normalizeUsername('a@nn'), 'a@nn')
  })
})
