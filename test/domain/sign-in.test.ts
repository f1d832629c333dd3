import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
import { after, before, describe, mock, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { dummyPasswordHash } from '../../src/domain/passwords.ts'
import { createSignInThrottle, signIn, type SignInKeys, type SignInThrottle } from '../../src/domain/sign-in.ts'
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
    assert.deepEqual(calls, [`admit ${user.screenName.toLowerCase()} b`])
  })
})

describe('the sign-in throttle on the stores\' limiters', () => {
  const throttleOf = (signInMaxFailures: number, signInWindowSeconds: number) =>
    createSignInThrottle(createMemoryLimiterFactory(), { signInMaxFailures, signInWindowSeconds })

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
