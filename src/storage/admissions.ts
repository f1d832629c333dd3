import type { AdmissionStore, NonceStore } from './types.ts'

/**
 * A request's admission as a sequence of calls to its limiters and the nonce store: in one process
 * (memory), where each call costs no round trip. With Redis, one script does it all
 * (redis/admissions.ts). The order is the rule: the address's budget is looked at (not counted),
 * the caller's is hit, then the nonce is remembered, a nonce that is not fresh giving the hit back
 * (whoever captured a request cannot spend the app's budget by replaying it), as does a store that
 * cannot remember it.
 */
export function createAdmissions(nonces: NonceStore): AdmissionStore {
  return {
    async admit({ address, charge, nonce }) {
      if (address) {
        const state = await address.limiter.peek(address.subject)
        if (!state.isAllowed) return { refusedBy: 'address', address: state, lookupIsCurrent: true }
      }
      const limit = charge && (await charge.limiter.hit(charge.subject))
      if (limit && !limit.isAllowed) return { refusedBy: 'charge', charge: limit, lookupIsCurrent: true }
      if (!nonce) return { charge: limit, lookupIsCurrent: true }
      const refund = async () => {
        if (charge) await charge.limiter.refund(charge.subject)
      }
      const verdict = await nonces.remember(nonce.use, nonce.expiresAtMs, nonce.nowMs).catch(async (error: unknown) => {
        await refund()
        throw error
      })
      if (verdict !== 'fresh') await refund()
      return { charge: limit, verdict, lookupIsCurrent: true }
    },
  }
}
