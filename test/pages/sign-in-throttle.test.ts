import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, test } from 'node:test'
import { createMemorySignInThrottle } from '../../src/pages/sign-in-throttle.ts'

describe('the memory sign-in throttle', () => {
  test('blocks an account or an address once it reaches the limit, each on its own', async () => {
    const throttle = createMemorySignInThrottle({ signInMaxFailures: 3, signInWindowSeconds: 60 })
    for (let i = 0; i < 3; i++) {
      assert.equal(await throttle.isBlocked({ account: 'ann', address: `a${i}` }), false)
      await throttle.recordFailure({ account: 'ann', address: `a${i}` })
    }
    assert.equal(await throttle.isBlocked({ account: 'ann', address: 'fresh' }), true)
    assert.equal(await throttle.isBlocked({ account: 'bob', address: 'a0' }), false)
  })

  test('reset forgets the account but not the address', async () => {
    const throttle = createMemorySignInThrottle({ signInMaxFailures: 2, signInWindowSeconds: 60 })
    await throttle.recordFailure({ account: 'ann', address: 'x' })
    await throttle.recordFailure({ account: 'ann', address: 'x' })
    await throttle.reset('ann')
    assert.equal(await throttle.isBlocked({ account: 'ann', address: 'y' }), false)
    assert.equal(await throttle.isBlocked({ account: 'bob', address: 'x' }), true)
  })

  test('lets the account in again when the window ends', async () => {
    const throttle = createMemorySignInThrottle({ signInMaxFailures: 1, signInWindowSeconds: 1 })
    await throttle.recordFailure({ account: 'ann', address: 'x' })
    assert.equal(await throttle.isBlocked({ account: 'ann', address: 'x' }), true)
    await sleep(1100)
    assert.equal(await throttle.isBlocked({ account: 'ann', address: 'x' }), false)
  })
})
