import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import type { DomainObserver } from '../../domain/observe.ts'
import { rateLimitedEndpoint, type RateLimitedResource } from '../../domain/rate-limit-table.ts'
import { chargedSubject, spend } from '../../domain/rate-limits.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError, type RateLimitState } from '../../errors/service-error.ts'
import type { LimitState } from '../../storage/types.ts'
import { connectionOf } from '../request-url.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The rate-limited resource this route counts against; its row of rate-limit-table.ts says how. */
    rateLimit?: RateLimitedResource
  }
}

/** Answers failed authentication with; a request like that is counted against its address. */
const AUTH_FAILURE_STATUSES = new Set([400, 401, 403])

const LIMIT = 'x-rate-limit-limit'
const REMAINING = 'x-rate-limit-remaining'
const RESET = 'x-rate-limit-reset'
const resetSeconds = (state: RateLimitState) => Math.ceil(state.resetAtMs / 1000)

/** The x-rate-limit-* headers of a limit's state, as an object (a check-request answer carries them). */
export function limitHeaders(state: RateLimitState): Record<typeof LIMIT | typeof REMAINING | typeof RESET, string> {
  return { [LIMIT]: String(state.limit), [REMAINING]: String(state.remaining), [RESET]: String(resetSeconds(state)) }
}

/** The x-rate-limit-* headers of a limit's state on an answer (no object per call: every charged request sets them); nothing when the call was not counted. */
export function setLimitHeaders(reply: FastifyReply, state: RateLimitState | undefined): void {
  if (!state) return
  reply.header(LIMIT, state.limit)
  reply.header(REMAINING, state.remaining)
  reply.header(RESET, resetSeconds(state))
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Set on the API's routes whose row counts failures by address (installAddressLimits): the
     * resource whose budget the client's address spends (RequestInput.addressBudget).
     */
    addressBudget?: RateLimitedResource
    /** Counts a refusal of the route against the client's address: past the budget it becomes 429 (installAddressLimits). */
    countFailure?: (request: FastifyRequest, error: ServiceError) => Promise<ServiceError>
  }
}

/**
 * Limits by client address, for what cannot be counted per app: requests that fail
 * authentication (so guessing costs the guesser, never the app), and every request of the pages.
 * Authenticated calls are charged per app or per app and user by the use cases (admitCall), which
 * return the limit's state with their answer (the route sets the headers) or with their refusal.
 *
 * The pages' rows count every request, before any work, here. The API's rows count failures: each
 * refusal (400, 401, 403) is counted as its error is rendered (the error handlers call
 * `countFailure`), atomically, and once the address has spent its budget the refusal becomes 429,
 * so parallel failures from one address can never pass the limit together, and a guess past the
 * budget learns nothing from its answer. A request that is not refused is admitted by its use case
 * (admitCall), which refuses it, in the same round trip as its charge, while the address's budget
 * is spent: an address costs no round trip of its own on the way to a success.
 *
 * The hooks are the routes' own (added as each route is declared), only on routes with a limit:
 * the others (`/healthz`, the documents, a 404) pay nothing for them. They run after the app's own
 * onRequest hooks, as they did when they were the app's.
 */
export function installAddressLimits(app: FastifyInstance, limiters: DomainDeps['limiters'], observe?: DomainObserver): void {
  app.addHook('onRoute', (route) => {
    const resource = (route.config as FastifyContextConfig | undefined)?.rateLimit
    const limiter = resource ? limiters.endpoints.get(resource) : undefined
    if (!resource || !limiter) return
    const countedBy = rateLimitedEndpoint(resource).countedBy
    const subjectOf = (request: FastifyRequest) => chargedSubject(countedBy, { address: connectionOf(request).ip })
    const refusal = (state: LimitState) => {
      observe?.rateLimited(resource, 'address')
      return new ServiceError(E.rateLimitExceeded, { detail: `address limit of ${resource}`, rateLimit: state })
    }
    if (countedBy !== 'address') {
      const countFailure = async (request: FastifyRequest, error: ServiceError): Promise<ServiceError> => {
        if (!AUTH_FAILURE_STATUSES.has(error.status)) return error
        const state = await limiter.hit(subjectOf(request))
        if (!state.isAllowed) return refusal(state)
        error.rateLimit ??= state
        return error
      }
      route.config = { ...route.config, addressBudget: resource, countFailure }
      return
    }
    const reserve: onRequestAsyncHookHandler = async (request, reply) => {
      const { limit } = await spend(limiter, subjectOf(request), (state) => {
        setLimitHeaders(reply, state)
        return refusal(state)
      })
      setLimitHeaders(reply, limit)
    }
    // A new array: the route's own options object may be shared (Fastify copies a GET's for its HEAD).
    route.onRequest = [...asArray(route.onRequest), reserve]
  })
}

const asArray = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks])
