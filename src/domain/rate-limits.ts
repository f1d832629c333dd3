import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import type { LimitState } from '../storage/types.ts'
import { budgetAddress } from './client-address.ts'
import type { DomainDeps } from './deps.ts'
import { limitedSubjectOf } from './observe.ts'
import { rateLimitedEndpoint, type RateLimitedResource } from './rate-limit-table.ts'

/** Whose budget a call spends: the app (app-only), the app and person (user context), or an address. */
export const limitSubject = {
  app: (appId: string) => `app:${appId}`,
  user: (appId: string, userId: string) => `user:${appId}:${userId}`,
  address: (address: string) => `addr:${budgetAddress(address)}`,
}

/** A verified caller as the limits see it: the app, and the person when signed with an access token. */
export interface Payer {
  appId: string
  userId?: string | undefined
}

/** What charging a call did: the state for the answer's headers, and how to give the call back. */
export interface Charge {
  /** Undefined when the resource has no limiter (a domain built without it). */
  limit: LimitState | undefined
  /** Gives the call back, when a later check finds the request was not one to serve (a replay). */
  refund(): Promise<void>
}

/** A use case's answer with the state of the limit it was counted against, for the x-rate-limit-* headers. */
export type Limited<T> = T & { limit: LimitState | undefined }

const NOTHING_CHARGED: Charge = { limit: undefined, refund: async () => {} }

/**
 * Counts one verified call against the resource's limit, per app or per app and person as its row
 * of rate-limit-table.ts says; past the limit it throws before the use case does anything: 429
 * code 88, or the row's own error (the /oauth2/token pace rule's 403 code 99). Only verified
 * callers are charged, so a stranger holding an app's public consumer key cannot spend its budget.
 */
export async function chargeCall(deps: Pick<DomainDeps, 'limiters' | 'observe'>, resource: RateLimitedResource, payer: Payer): Promise<Charge> {
  const limiter = deps.limiters.endpoints.get(resource)
  if (!limiter) return NOTHING_CHARGED
  const endpoint = rateLimitedEndpoint(resource)
  const subject = endpoint.countedBy === 'caller' && payer.userId !== undefined ? limitSubject.user(payer.appId, payer.userId) : limitSubject.app(payer.appId)
  const state = await limiter.hit(subject)
  if (!state.isAllowed) {
    deps.observe?.rateLimited(resource, limitedSubjectOf(subject))
    throw new ServiceError(endpoint.pace?.overLimit ?? E.rateLimitExceeded, { detail: `rate limit of ${resource}`, rateLimit: state })
  }
  return { limit: state, refund: () => limiter.refund(subject) }
}

/**
 * The rest of a charged call: its answer gets the limit's state; a refusal it throws carries that
 * state too, so a failure after the count shows the same headers as a success.
 */
export async function afterCharge<T extends object>(limit: LimitState | undefined, work: () => Promise<T>): Promise<Limited<T>> {
  try {
    return { ...(await work()), limit }
  } catch (error) {
    if (error instanceof ServiceError && error.rateLimit === undefined) error.rateLimit = limit
    throw error
  }
}
