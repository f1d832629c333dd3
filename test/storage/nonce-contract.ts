import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { StorageUnavailableError } from '../../src/storage/errors.ts'
import type { Stores } from '../../src/storage/types.ts'
import { expiryOf, nonceUse } from '../helpers/nonce-use.ts'
import { withFreshStores, type OpenFreshStores } from './contract.ts'

/**
 * The nonce part of the store contract (RFC 5849 §3.3), in files of its own: each test waits for
 * the store's epoch to pass (up to a second), which the rest of the contract has no need to.
 */
export function nonceContract(adapter: string, open: OpenFreshStores): void {
  const withStores = (body: (s: Stores) => Promise<void>, settleNonceEpoch: boolean) => withFreshStores(open, body, settleNonceEpoch)

  /**
   * Runs `body` on a store of `capacity` nonces, near full at 90 %, with a way to remember a nonce
   * of a consumer key, every one stamped in the same second (or `aheadSeconds` after it, as a
   * client whose clock is ahead) and, unless given a life, expiring as the verifier has it. On
   * Redis, held counts are kept per 30 s of expiry and apps counted per such bucket: a test spread
   * across a bucket's end would count fewer than it meant to, so it starts at least 2 s before one.
   */
  async function withBudget(
    capacity: number,
    body: (remember: (consumerKey: string, nonce: string, options?: { lifeMs?: number; aheadSeconds?: number }) => Promise<unknown>) => Promise<void>,
  ): Promise<void> {
    const opened = await open({ settleNonceEpoch: true, nonceBudget: { capacity, nearFull: 0.9 } })
    try {
      if (Date.now() % 30_000 > 28_000) await new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 10))
      const nowMs = Date.now()
      await body((consumerKey, nonce, { lifeMs, aheadSeconds = 0 } = {}) => {
        const use = nonceUse(consumerKey, nonce, { timestampSeconds: Math.floor(nowMs / 1000) + aheadSeconds })
        return opened.stores.nonces.remember(use, lifeMs === undefined ? expiryOf(use) : nowMs + lifeMs, nowMs)
      })
    } finally {
      await opened.close()
    }
  }

  describe(`${adapter} nonces`, () => {
    test('a nonce is fresh the first time and a replay inside its window', async () => {
      await withStores(async (s) => {
        const use = nonceUse('ck', 'n1')
        const now = Date.now()
        assert.equal(await s.nonces.remember(use, expiryOf(use), now), 'fresh')
        assert.equal(await s.nonces.remember(use, expiryOf(use), now + 299_000), 'replayed')
      }, true)
    })

    test('the same nonce from another consumer key, with another token or another timestamp is fresh (RFC 5849 §3.3)', async () => {
      await withStores(async (s) => {
        const now = Date.now()
        const ts = Math.floor(now / 1000)
        for (const use of [
          nonceUse('ck-a', 'n1', { timestampSeconds: ts }),
          nonceUse('ck-b', 'n1', { timestampSeconds: ts }),
          nonceUse('ck-a', 'n1', { timestampSeconds: ts, token: 'token-1' }),
          nonceUse('ck-a', 'n1', { timestampSeconds: ts + 1 }),
        ]) {
          assert.equal(await s.nonces.remember(use, expiryOf(use), now), 'fresh')
        }
      }, true)
    })

    // On real time: Redis measures the life of a key on its own clock.
    test('a nonce is fresh again once its window has passed', async () => {
      await withStores(async (s) => {
        const use = nonceUse('ck', 'n1')
        const expiresAtMs = () => Date.now() + 200
        assert.equal(await s.nonces.remember(use, expiresAtMs(), Date.now()), 'fresh')
        assert.equal(await s.nonces.remember(use, expiresAtMs(), Date.now()), 'replayed')
        // The memory store drops entries by 10 s buckets: its expiry is checked in a unit test.
        if (s.nonces.entryCount(Date.now()) !== undefined) return
        await new Promise((resolve) => setTimeout(resolve, 300))
        assert.equal(await s.nonces.remember(use, expiresAtMs(), Date.now()), 'fresh')
        assert.equal(await s.nonces.remember(use, expiresAtMs(), Date.now()), 'replayed')
      }, true)
    })

    test('a nonce holding the separator characters does not collide with another key', async () => {
      await withStores(async (s) => {
        const now = Date.now()
        for (const [key, nonce, token] of [['a:b', 'c', undefined], ['a', 'b:c', undefined], ['a\nb', 'c', undefined], ['a', 'b\nc', undefined], ['a', 'b', 'c:1'], ['a', 'b:c', '1']] as const) {
          const use = nonceUse(key, nonce, token ? { token } : {})
          assert.equal(await s.nonces.remember(use, expiryOf(use), now), 'fresh', `${key} ${nonce} ${token}`)
        }
      }, true)
    })

    test('near the budget, the app holding its share is refused while another is served; at the budget, every app is', async () => {
      await withBudget(20, async (remember) => {
        for (let i = 0; i < 18; i++) assert.equal(await remember('flooder', `n${i}`), 'fresh', `the flooder's nonce ${i}`)
        await assert.rejects(remember('flooder', 'n18'), { name: 'StorageUnavailableError', message: 'nonce store nearly full: consumer key flooder holds 18 of 18 nonces, its share or more' }, 'alone, it may fill 90 % of the store')
        assert.equal(await remember('flooder', 'n0'), 'replayed', 'a replay is still told apart')
        assert.equal(await remember('other', 'n0'), 'fresh')
        assert.equal(await remember('other', 'n1'), 'fresh')
        await assert.rejects(remember('flooder', 'n19'), StorageUnavailableError, 'the flooder is still refused')
        await assert.rejects(remember('third', 'n0'), { name: 'StorageUnavailableError', message: 'nonce store full: 20 nonces held' }, 'at the capacity every app is refused')
      })
    })

    test('near the budget with two apps, the share is the near-full count divided between them: over it refused, under it served', async () => {
      await withBudget(20, async (remember) => {
        for (let i = 0; i < 10; i++) assert.equal(await remember('big', `n${i}`), 'fresh')
        for (let i = 0; i < 8; i++) assert.equal(await remember('small', `n${i}`), 'fresh')
        // 18 held: near full. Each app's share is 18 ÷ 2 = 9: big (10) is over it, small (8) under.
        await assert.rejects(remember('big', 'n10'), StorageUnavailableError, 'big holds more than its share, though less than the near-full count')
        assert.equal(await remember('small', 'n8'), 'fresh', 'small is under its share')
      })
    })

    test('a nonce with a short life counts against the budget until it expires, not only while its count bucket has begun', async () => {
      await withBudget(2, async (remember) => {
        // Its expiry in the same 30 s count bucket as now.
        assert.equal(await remember('ck', 'n1', { lifeMs: 1_500 }), 'fresh')
        assert.equal(await remember('ck', 'n2', { lifeMs: 1_500 }), 'fresh')
        await assert.rejects(remember('ck', 'n3', { lifeMs: 1_500 }), { name: 'StorageUnavailableError', message: 'nonce store full: 2 nonces held' })
      })
    })

    test('a nonce stamped ahead by a client whose clock is fast counts against the budget of a request stamped now', async () => {
      await withBudget(1, async (remember) => {
        // Timely: at most the 300 s window ahead. It lives until its own timestamp's window ends.
        assert.equal(await remember('fast-clock', 'n1', { aheadSeconds: 240 }), 'fresh')
        await assert.rejects(remember('ck', 'n1'), { name: 'StorageUnavailableError', message: 'nonce store full: 1 nonces held' })
      })
    })

    test('a request stamped before the store was opened is before its epoch, one stamped since is not', async () => {
      await withStores(async (s) => {
        const now = Date.now()
        const before = nonceUse('ck', 'old', { timestampSeconds: Math.floor(now / 1000) - 60 })
        assert.equal(await s.nonces.remember(before, expiryOf(before), now), 'before-epoch')
        const since = nonceUse('ck', 'new')
        assert.equal(await s.nonces.remember(since, expiryOf(since), now), 'fresh')
      }, true)
    })
  })
}
