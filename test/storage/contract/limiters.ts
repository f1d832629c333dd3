import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { unique, type ContractKit } from './fixtures.ts'

/** The storage contract's part on the limiters (the runtime's) (src/storage/types.ts). */
export function limitersContract({ withStores }: ContractKit): void {
  describe('limiters', () => {
    test('allow `limit` hits of a key in a window, then refuse', async () => {
      await withStores(async (_s, { runtime }) => {
        const limiter = runtime.limiters.create(`contract-${unique()}`, 3, 900)
        const states = []
        for (let i = 0; i < 4; i++) states.push(await limiter.hit('key'))
        assert.deepEqual(states.map((st) => st.isAllowed), [true, true, true, false])
        assert.deepEqual(states.map((st) => st.remaining), [2, 1, 0, 0])
        assert.deepEqual(states.map((st) => st.limit), [3, 3, 3, 3])
        // The window started at the first hit and ends 900 s later, for every state of it.
        const now = Date.now()
        for (const state of states) assert.ok(state.resetAtMs > now + 890_000 && state.resetAtMs <= now + 900_000, `${state.resetAtMs - now} ms to the reset`)
        const unseen = await limiter.peek('never-hit')
        assert.ok(unseen.resetAtMs > now + 890_000 && unseen.resetAtMs <= Date.now() + 900_000, 'a key never hit: a whole window ahead')
        assert.deepEqual([unseen.remaining, unseen.limit, unseen.isAllowed], [3, 3, true])
      })
    })

    test('count each key, and each limiter, on its own', async () => {
      await withStores(async (_s, { runtime }) => {
        const a = runtime.limiters.create(`contract-a-${unique()}`, 1, 900)
        const b = runtime.limiters.create(`contract-b-${unique()}`, 1, 900)
        assert.equal((await a.hit('k1')).isAllowed, true)
        assert.equal((await a.hit('k2')).isAllowed, true)
        assert.equal((await b.hit('k1')).isAllowed, true)
        assert.equal((await a.hit('k1')).isAllowed, false)
      })
    })

    test('a refund gives back one hit of the window: the next is allowed again, once', async () => {
      await withStores(async (_s, { runtime }) => {
        const limiter = runtime.limiters.create(`contract-${unique()}`, 2, 900)
        await limiter.hit('key')
        await limiter.hit('key')
        assert.equal((await limiter.peek('key')).remaining, 0)
        await limiter.refund('key')
        assert.equal((await limiter.peek('key')).remaining, 1)
        assert.equal((await limiter.hit('key')).isAllowed, true)
        assert.equal((await limiter.hit('key')).isAllowed, false)
      })
    })

    test('peek tells the state without counting a hit', async () => {
      await withStores(async (_s, { runtime }) => {
        const limiter = runtime.limiters.create(`contract-${unique()}`, 2, 900)
        assert.equal((await limiter.peek('key')).remaining, 2)
        await limiter.hit('key')
        assert.equal((await limiter.peek('key')).remaining, 1)
        assert.equal((await limiter.peek('key')).remaining, 1)
        assert.equal((await limiter.hit('key')).isAllowed, true)
      })
    })

    test('peek says whether one more hit would be allowed', async () => {
      await withStores(async (_s, { runtime }) => {
        const limiter = runtime.limiters.create(`contract-${unique()}`, 2, 900)
        assert.equal((await limiter.peek('key')).isAllowed, true)
        await limiter.hit('key')
        assert.equal((await limiter.peek('key')).isAllowed, true)
        await limiter.hit('key')
        assert.equal((await limiter.peek('key')).isAllowed, false, 'the limit is used up')
        assert.equal((await limiter.hit('key')).isAllowed, false)
      })
    })

    test('reset forgets the hits of a key', async () => {
      await withStores(async (_s, { runtime }) => {
        const limiter = runtime.limiters.create(`contract-${unique()}`, 1, 900)
        await limiter.hit('key')
        assert.equal((await limiter.hit('key')).isAllowed, false)
        await limiter.reset('key')
        assert.equal((await limiter.hit('key')).isAllowed, true)
      })
    })
  })
}
