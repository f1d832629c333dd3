import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { StorageUnavailableError } from '../../../src/storage/errors.ts'
import type { AdmissionRequest, Limiter, Stores } from '../../../src/storage/types.ts'
import { expiryOf, nonceUse } from '../../helpers/nonce-use.ts'
import { unique, type ContractKit } from './fixtures.ts'

/** The storage contract's part on admissions (src/storage/counter-types.ts AdmissionStore): one call per verified request. */
export function admissionsContract({ withStores, open }: ContractKit): void {
  /** A nonce of a fresh consumer key, stamped in the store's current second (its epoch settled first). */
  async function freshNonce(s: Stores): Promise<NonNullable<AdmissionRequest['nonce']>> {
    await s.nonces.settleEpoch()
    const use = nonceUse(`ck-${unique()}`, unique(), { timestampSeconds: Math.floor(Date.now() / 1000) })
    return { use, expiresAtMs: expiryOf(use), nowMs: Date.now() }
  }
  const budgets = (limiter: Limiter) => ({ address: { limiter, subject: `addr:${unique()}` }, charge: { limiter, subject: `app:${unique()}` } })

  describe('admissions', () => {
    test('admit a call: the caller is charged and its nonce remembered; the address spends nothing', async () => {
      await withStores(async (s, { runtime }) => {
        const limiter = runtime.limiters.create(`contract-${unique()}`, 2, 900)
        const { address, charge } = budgets(limiter)
        const nonce = await freshNonce(s)
        const admission = await s.admissions.admit({ address, charge, nonce })
        assert.equal(admission.refusedBy, undefined)
        assert.equal(admission.verdict, 'fresh')
        assert.equal(admission.lookupIsCurrent, true)
        assert.deepEqual([admission.charge?.isAllowed, admission.charge?.remaining, admission.charge?.limit], [true, 1, 2])
        assert.equal((await limiter.peek(address.subject)).remaining, 2, "the address's budget is looked at, not spent")
        assert.equal((await limiter.peek(charge.subject)).remaining, 1)
        // The same nonce again: a replay, whose hit is given back.
        const replay = await s.admissions.admit({ address, charge, nonce })
        assert.equal(replay.verdict, 'replayed')
        assert.equal((await limiter.peek(charge.subject)).remaining, 1, 'a replay gives its hit back')
      })
    })

    test("refuse while the address has spent its budget: nothing is counted, the nonce is not remembered", async () => {
      await withStores(async (s, { runtime }) => {
        const limiter = runtime.limiters.create(`contract-${unique()}`, 2, 900)
        const { address, charge } = budgets(limiter)
        await limiter.hit(address.subject)
        assert.equal((await s.admissions.admit({ address, charge })).refusedBy, undefined, 'one failure of two: still admitted')
        await limiter.hit(address.subject)
        const nonce = await freshNonce(s)
        const admission = await s.admissions.admit({ address, charge, nonce })
        assert.equal(admission.refusedBy, 'address')
        assert.deepEqual([admission.address?.isAllowed, admission.address?.remaining, admission.address?.limit], [false, 0, 2])
        assert.ok(admission.address!.resetAtMs > Date.now() + 890_000, 'the reset is the end of the address window')
        assert.equal(admission.verdict, undefined)
        assert.equal((await limiter.peek(charge.subject)).remaining, 1, 'only the admitted call was charged')
        assert.equal(await s.nonces.remember(nonce.use, nonce.expiresAtMs, nonce.nowMs), 'fresh', 'the refused call left its nonce unspent')
      })
    })

    test("refuse past the caller's limit: the hit stays counted, the nonce is not remembered", async () => {
      await withStores(async (s, { runtime }) => {
        const limiter = runtime.limiters.create(`contract-${unique()}`, 1, 900)
        const { charge } = budgets(limiter)
        assert.equal((await s.admissions.admit({ charge, nonce: await freshNonce(s) })).verdict, 'fresh')
        const nonce = await freshNonce(s)
        const admission = await s.admissions.admit({ charge, nonce })
        assert.equal(admission.refusedBy, 'charge')
        assert.deepEqual([admission.charge?.isAllowed, admission.charge?.remaining], [false, 0])
        assert.equal(admission.verdict, undefined)
        assert.equal(await s.nonces.remember(nonce.use, nonce.expiresAtMs, nonce.nowMs), 'fresh')
      })
    })

    test("a nonce signed before the store's epoch gives the hit back", async () => {
      await withStores(async (s, { runtime }) => {
        const limiter = runtime.limiters.create(`contract-${unique()}`, 3, 900)
        const { charge } = budgets(limiter)
        await s.nonces.settleEpoch()
        const use = nonceUse(`ck-${unique()}`, unique(), { timestampSeconds: Math.floor(Date.now() / 1000) - 3600 })
        const admission = await s.admissions.admit({ charge, nonce: { use, expiresAtMs: expiryOf(use), nowMs: Date.now() } })
        assert.equal(admission.verdict, 'before-epoch')
        assert.equal((await limiter.peek(charge.subject)).remaining, 3)
      })
    })

    test('a store that cannot take the nonce refuses the call (503) and gives the hit back', async () => {
      const opened = await open({ settleNonceEpoch: true, nonceBudget: { capacity: 1, nearFull: 0.9 } })
      try {
        const s = opened.stores
        const limiter = opened.runtime.limiters.create(`contract-${unique()}`, 3, 900)
        const { charge } = budgets(limiter)
        assert.equal((await s.admissions.admit({ charge, nonce: await freshNonce(s) })).verdict, 'fresh')
        await assert.rejects(s.admissions.admit({ charge, nonce: await freshNonce(s) }), StorageUnavailableError)
        assert.equal((await limiter.peek(charge.subject)).remaining, 2, 'the refused call was given back')
      } finally {
        await opened.close()
      }
    })

    test('without budgets or a nonce: admitted, nothing counted', async () => {
      await withStores(async (s) => {
        const admission = await s.admissions.admit({})
        assert.deepEqual([admission.refusedBy, admission.charge, admission.verdict, admission.lookupIsCurrent], [undefined, undefined, undefined, true])
      })
    })
  })
}
