import { E, type ErrorDef } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import type { LimitState } from '../storage/types.ts'
import { budgetAddress } from './client-address.ts'
import type { DomainDeps } from './deps.ts'

/**
 * A call to count against an endpoint's limit. The HTTP layer makes one per request; `report`
 * receives the limiter's state so the answer can carry x-rate-limit-* headers.
 */
export interface CountedCall {
  resource: string
  report?: (state: LimitState) => void
}

/** Whose budget a call spends: the app (app-only), the app and person (user context), or an address. */
export const limitSubject = {
  app: (appId: string) => `app:${appId}`,
  user: (appId: string, userId: string) => `user:${appId}:${userId}`,
  address: (address: string) => `addr:${budgetAddress(address)}`,
}

/**
 * Counts one authenticated call; past the limit it throws (429 code 88 unless the endpoint has its
 * own rule) before the use case does anything. Only verified callers are counted here, so a
 * stranger holding an app's public consumer key cannot spend that app's limit.
 */
export async function countCall(
  deps: Pick<DomainDeps, 'limiters'>,
  call: CountedCall | undefined,
  subject: string,
  overLimit: ErrorDef = E.rateLimitExceeded,
): Promise<Refund> {
  if (!call) return NOTHING_TO_REFUND
  const limiter = deps.limiters.endpoints.get(call.resource)
  if (!limiter) return NOTHING_TO_REFUND
  const state = await limiter.hit(subject)
  call.report?.(state)
  if (!state.isAllowed) throw new ServiceError(overLimit, { detail: `rate limit of ${call.resource}` })
  return () => limiter.refund(subject)
}

/** Gives a counted call back, when a later check finds the request was not one to serve (a replay). */
export type Refund = () => Promise<void>
const NOTHING_TO_REFUND: Refund = async () => {}
