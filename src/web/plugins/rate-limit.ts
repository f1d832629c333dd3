import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onSendAsyncHookHandler } from 'fastify'
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

/**
 * Limits by client address, for what cannot be counted per app: requests that fail
 * authentication (so guessing costs the guesser, never the app), and every request of the pages.
 * Authenticated calls are charged per app or per app and user by the use cases (chargeCall), which
 * return the limit's state with their answer (the route sets the headers) or with their refusal.
 *
 * A request reserves its hit before any work is done and gives it back once its answer turns out
 * not to be a failure, so parallel failures from one address can never pass the limit together
 * (a check before and a count after would let a whole burst through the check).
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
    // The pages' rows count every request by address; the API's, only failures before anyone is verified.
    const countedBy = rateLimitedEndpoint(resource).countedBy
    const isCountedByAddress = countedBy === 'address'
    const reservations = new WeakMap<FastifyRequest, { subject: string; state: LimitState }>()
    const keep = (request: FastifyRequest, subject: string, state: LimitState) => {
      if (!isCountedByAddress) reservations.set(request, { subject, state })
    }
    const reserve: onRequestAsyncHookHandler = async (request, reply) => {
      const subject = chargedSubject(countedBy, { address: connectionOf(request).ip })
      const refusal = (state: LimitState) => {
        keep(request, subject, state)
        setLimitHeaders(reply, state)
        observe?.rateLimited(resource, 'address')
        return new ServiceError(E.rateLimitExceeded, { detail: `address limit of ${resource}` })
      }
      const { limit } = await spend(limiter, subject, refusal)
      keep(request, subject, limit)
      if (isCountedByAddress) setLimitHeaders(reply, limit)
    }
    const settle: onSendAsyncHookHandler = async (request, reply, payload) => {
      const reservation = reservations.get(request)
      if (!reservation) return payload
      reservations.delete(request)
      if (AUTH_FAILURE_STATUSES.has(reply.statusCode)) {
        if (!reply.hasHeader('x-rate-limit-limit')) setLimitHeaders(reply, reservation.state)
      } else {
        await limiter.refund(reservation.subject)
      }
      return payload
    }
    // New arrays: the route's own options object may be shared (Fastify copies a GET's for its HEAD).
    route.onRequest = [...asArray(route.onRequest), reserve]
    if (!isCountedByAddress) route.onSend = [...asArray(route.onSend), settle]
  })
}

const asArray = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks])
