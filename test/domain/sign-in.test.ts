import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { createSignInThrottle, signIn, type SignInKeys, type SignInThrottle } from '../../src/domain/sign-in.ts'
import { createMemoryLimiterFactory } from '../../src/storage/memory/limiter.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { makeUser } from '../helpers/fixtures.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-app.ts'

/** A throttle that records what it was told and blocks on demand. */
function fakeThrottle() {
  const calls: string[] = []
  let blocked = false
  const throttle: SignInThrottle = {
    async isBlocked(keys: SignInKeys) {
      calls.push(`isBlocked ${keys.account} ${keys.address}`)
      return blocked
    },
    async recordFailure(keys: SignInKeys) {
      calls.push(`recordFailure ${keys.account} ${keys.address}`)
    },
    async reset(account: string) {
      calls.push(`reset ${account}`)
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
    assert.deepEqual(calls, ['isBlocked ada_l 10.0.0.1', 'reset ada_l'])
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
    assert.ok(calls.includes(`recordFailure ${user.screenName.toLowerCase()} a`))
    assert.ok(calls.includes('recordFailure nobody_here a'))
  })

  test('an unknown user costs about as long as a wrong password (a dummy hash is checked)', async () => {
    const { user } = await makeUser(t.domain)
    const { throttle } = fakeThrottle()
    const time = async (username: string) => {
      const start = performance.now()
      await signIn({ ...t.domain, throttle }, { username, password: 'not-the-password', address: 'a' }).catch(() => {})
      return performance.now() - start
    }
    await time('warm_up')
    const known = Math.min(await time(user.screenName), await time(user.screenName))
    const unknown = Math.min(await time('no_such_user'), await time('no_such_user'))
    assert.ok(unknown > known * 0.3, `unknown ${unknown.toFixed(1)}ms vs known ${known.toFixed(1)}ms`)
  })

  test('a blocked account or address is refused with 429 before the password is checked, even the right one', async () => {
    const { user, password } = await makeUser(t.domain)
    const { throttle, calls, block } = fakeThrottle()
    block()
    await assert.rejects(signIn({ ...t.domain, throttle }, { username: user.screenName, password, address: 'b' }), (error) => {
      return withCode(1108)(error) && (error as ServiceError).status === 429
    })
    assert.deepEqual(calls, [`isBlocked ${user.screenName.toLowerCase()} b`])
  })
})

describe('the sign-in throttle on the stores\' limiters', () => {
  const throttleOf = (signInMaxFailures: number, signInWindowSeconds: number) =>
    createSignInThrottle(createMemoryLimiterFactory(), { signInMaxFailures, signInWindowSeconds })

  test('blocks an account or an address once it reaches the limit, each on its own', async () => {
    const throttle = throttleOf(3, 60)
    for (let i = 0; i < 3; i++) {
      assert.equal(await throttle.isBlocked({ account: 'ann', address: `a${i}` }), false)
      await throttle.recordFailure({ account: 'ann', address: `a${i}` })
    }
    assert.equal(await throttle.isBlocked({ account: 'ann', address: 'fresh' }), true)
    assert.equal(await throttle.isBlocked({ account: 'bob', address: 'a0' }), false)
  })

  test('reset forgets the account but not the address', async () => {
    const throttle = throttleOf(2, 60)
    await throttle.recordFailure({ account: 'ann', address: 'x' })
    await throttle.recordFailure({ account: 'ann', address: 'x' })
    await throttle.reset('ann')
    assert.equal(await throttle.isBlocked({ account: 'ann', address: 'y' }), false)
    assert.equal(await throttle.isBlocked({ account: 'bob', address: 'x' }), true)
  })

  test('lets the account in again when the window ends', async () => {
    const throttle = throttleOf(1, 1)
    await throttle.recordFailure({ account: 'ann', address: 'x' })
    assert.equal(await throttle.isBlocked({ account: 'ann', address: 'x' }), true)
    await sleep(1100)
    assert.equal(await throttle.isBlocked({ account: 'ann', address: 'x' }), false)
  })
})
