import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createClockedLimiterFactory } from '../../../src/storage/memory/clocked-limiter.ts'

describe("the test mode's limiters: fixed windows on the clock the test suite moves", () => {
  const setUp = () => {
    let nowMs = 1_000_000
    const factory = createClockedLimiterFactory(() => nowMs)
    return { factory, limiter: factory.create('calls', 2, 60), move: (ms: number) => (nowMs += ms), now: () => nowMs }
  }

  test('a window counts to its limit, says when it resets, and ends when the moved clock reaches that moment, not before', async () => {
    const { limiter, move, now } = setUp()
    const start = now()
    assert.deepEqual(await limiter.hit('k'), { isAllowed: true, limit: 2, remaining: 1, resetAtMs: start + 60_000 })
    move(10_000)
    assert.deepEqual(await limiter.hit('k'), { isAllowed: true, limit: 2, remaining: 0, resetAtMs: start + 60_000 })
    assert.equal((await limiter.hit('k')).isAllowed, false)
    assert.equal((await limiter.peek('k')).isAllowed, false)
    assert.equal((await limiter.peek('other')).isAllowed, true, 'a key of its own')
    move(49_999)
    assert.equal((await limiter.hit('k')).isAllowed, false, 'a millisecond before the end')
    move(1)
    assert.deepEqual(await limiter.hit('k'), { isAllowed: true, limit: 2, remaining: 1, resetAtMs: now() + 60_000 })
  })

  test('a refund gives one hit back; reset forgets a key; clear forgets every count of every limiter', async () => {
    const { factory, limiter } = setUp()
    const other = factory.create('other', 1, 60)
    await limiter.hit('k')
    await limiter.hit('k')
    await limiter.refund('k')
    assert.equal((await limiter.peek('k')).remaining, 1)
    await limiter.reset('k')
    assert.equal((await limiter.peek('k')).remaining, 2)
    await limiter.hit('k')
    await other.hit('k')
    assert.equal((await other.peek('k')).isAllowed, false)
    factory.clear()
    assert.equal((await limiter.peek('k')).remaining, 2)
    assert.equal((await other.peek('k')).isAllowed, true)
  })
})
