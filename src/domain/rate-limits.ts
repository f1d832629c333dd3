import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import type { AdmissionRequest, Budget, LimitState, Limiter, NonceVerdict } from '../storage/types.ts'
import { budgetAddress } from './client-address.ts'
import type { DomainDeps } from './deps.ts'
import { limitedSubjectOf } from './observe.ts'
import { rateLimitedEndpoint, type RateLimitedEndpoint, type RateLimitedResource } from './rate-limit-table.ts'
import type { RequestInput } from './request.ts'

/** The keys budgets are kept under: the app's, the app's and person's, or the client address's. */
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

/**
 * Whose budget a call spends, by its endpoint's row of rate-limit-table.ts: a verified caller's
 * app, or its app and person where the row counts by caller and the call acts for one; the
 * client's address where the row counts by address, or before anyone is verified.
 */
export function chargedSubject(countedBy: RateLimitedEndpoint['countedBy'], who: { payer?: Payer | undefined; address?: string | undefined }): string {
  const { payer, address } = who
  if (payer && countedBy !== 'address') return countedBy === 'caller' && payer.userId !== undefined ? limitSubject.user(payer.appId, payer.userId) : limitSubject.app(payer.appId)
  if (address === undefined) throw new Error(`a call counted by ${countedBy} names neither a verified caller nor an address`)
  return limitSubject.address(address)
}

/** What charging a call did: the state for the answer's headers, and how to give the call back. */
export interface Charge {
  /** Undefined when nothing was charged (no resource, or a domain built without its limiter). */
  limit: LimitState | undefined
  /** Gives the call back, when a later check finds the request was not one to serve (a replay). */
  refund(): Promise<void>
}

/** A use case's answer with the state of the limit it was counted against, for the x-rate-limit-* headers. */
export type Limited<T> = T & { limit: LimitState | undefined }

const NOTHING_CHARGED: Charge = { limit: undefined, refund: async () => {} }

/**
 * The one way a budget is spent: one hit of `subject`, counted before the work, so that parallel
 * calls cannot pass the limit together. Past the limit the hit stays counted and `refusal`, made from
 * the limit's state (for the answer's x-rate-limit-* headers), is thrown; without a refusal the caller
 * reads `limit.isAllowed` itself (the sign-in throttle, which gives refused attempts back).
 */
export async function spend(limiter: Limiter, subject: string, refusal?: (state: LimitState) => Error): Promise<Charge & { limit: LimitState }> {
  const state = await limiter.hit(subject)
  if (!state.isAllowed && refusal) throw refusal(state)
  return { limit: state, refund: () => limiter.refund(subject) }
}

/** What else a verified call settles in its admission, besides its charge. */
export interface CallAdmission {
  /** The request: the address's budget of failures it names (RequestInput.addressBudget) refuses it while spent. */
  input?: RequestInput | undefined
  /** A signed request's nonce, remembered only once the charge passed (a replay gives the charge back). */
  nonce?: AdmissionRequest['nonce']
  /** The lookup the caller was verified with, when it may be the validity cache's: see `lookupIsCurrent`. */
  lookedUp?: object | undefined
}

/** What admitting a verified call did: the charge, the nonce's verdict, and whether the lookup it was verified with is current. */
export interface Admitted extends Charge {
  verdict?: NonceVerdict | undefined
  /** False: a credential may have ended since the lookup; look up and check again (and give the charge back on a refusal). */
  lookupIsCurrent: boolean
}

/**
 * Admits one verified call, in one call to the admission store (one Redis round trip where the
 * counters live there): refused 429 while the client address has spent its budget of failures;
 * counted against the resource's limit, per app or per app and person as its row of
 * rate-limit-table.ts says, refused past it (429 code 88, or the row's own error: the
 * /oauth2/token pace rule's 403 code 99) before the use case does anything; then its nonce, if it
 * has one. Only verified callers are charged, so a stranger holding an app's public consumer key
 * cannot spend its budget. A null resource charges nothing (a resource server's own API, or a
 * caller that charges itself).
 */
export async function admitCall(
  deps: Pick<DomainDeps, 'limiters' | 'observe' | 'stores'>,
  resource: RateLimitedResource | null,
  payer: Payer,
  call: CallAdmission = {},
): Promise<Admitted> {
  const limiter = resource === null ? undefined : deps.limiters.endpoints.get(resource)
  const endpoint = limiter && rateLimitedEndpoint(resource!)
  const subject = endpoint && chargedSubject(endpoint.countedBy, { payer })
  const address = addressBudgetOf(deps, call.input)
  if (!limiter && !address && !call.nonce && !call.lookedUp) return { ...NOTHING_CHARGED, lookupIsCurrent: true }
  const admission = await deps.stores.admissions.admit({ address, charge: limiter && { limiter, subject: subject! }, nonce: call.nonce, lookedUp: call.lookedUp })
  if (admission.refusedBy === 'address') {
    deps.observe?.rateLimited(call.input!.addressBudget!, 'address')
    throw new ServiceError(E.rateLimitExceeded, { detail: `address limit of ${call.input!.addressBudget}`, rateLimit: admission.address })
  }
  if (admission.refusedBy === 'charge') {
    deps.observe?.rateLimited(resource!, limitedSubjectOf(subject!))
    throw new ServiceError(endpoint!.pace?.overLimit ?? E.rateLimitExceeded, { detail: `rate limit of ${resource}`, rateLimit: admission.charge })
  }
  const refund = limiter ? () => limiter.refund(subject!) : NOTHING_CHARGED.refund
  return { limit: admission.charge, refund, verdict: admission.verdict, lookupIsCurrent: admission.lookupIsCurrent }
}

/** The request's budget of failures, by its address, where the route keeps one (RequestInput.addressBudget). */
function addressBudgetOf(deps: Pick<DomainDeps, 'limiters'>, input: RequestInput | undefined): Budget | undefined {
  if (input?.addressBudget === undefined || input.clientAddress === undefined) return undefined
  const limiter = deps.limiters.endpoints.get(input.addressBudget)
  return limiter && { limiter, subject: limitSubject.address(input.clientAddress) }
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
