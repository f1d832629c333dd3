import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { limitSubject, type CountedCall } from '../../domain/rate-limits.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { LimitState, Limiter } from '../../storage/types.ts'
import { connectionOf } from '../request-url.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The rate-limited resource this route counts against (rate-limit-table.ts). */
    rateLimit?: string
    /** Count every request per client address (the browser pages), not only failed ones. */
    rateLimitByAddress?: boolean
  }
}

/** Answers failed authentication with; a request like that is counted against its address. */
const AUTH_FAILURE_STATUSES = new Set([400, 401, 403])

export function setLimitHeaders(reply: FastifyReply, state: LimitState): void {
  reply.header('x-rate-limit-limit', state.limit)
  reply.header('x-rate-limit-remaining', state.remaining)
  reply.header('x-rate-limit-reset', Math.ceil(state.resetAtMs / 1000))
}

/** The call a route's request counts as, for the domain to count once it knows the caller. */
export function countedCall(request: FastifyRequest, reply: FastifyReply): CountedCall | undefined {
  const resource = request.routeOptions.config.rateLimit
  return resource ? { resource, report: (state) => setLimitHeaders(reply, state) } : undefined
}

/**
 * Limits by client address, for what cannot be counted per app: requests that fail
 * authentication (so guessing costs the guesser, never the app), and every request of the pages.
 * Authenticated calls are counted per app or per app and user by the domain (countCall).
 *
 * A request reserves its hit before any work is done and gives it back once its answer turns out
 * not to be a failure, so parallel failures from one address can never pass the limit together
 * (a check before and a count after would let a whole burst through the check).
 */
export function installAddressLimits(app: FastifyInstance, limiters: DomainDeps['limiters']): void {
  const reservations = new WeakMap<FastifyRequest, { limiter: Limiter; key: string; state: LimitState }>()
  app.addHook('onRequest', async (request, reply) => {
    const { rateLimit: resource, rateLimitByAddress } = request.routeOptions.config
    const limiter = resource ? limiters.endpoints.get(resource) : undefined
    if (!limiter) return
    const key = limitSubject.address(connectionOf(request).ip)
    const state = await limiter.hit(key)
    if (!rateLimitByAddress) reservations.set(request, { limiter, key, state })
    if (rateLimitByAddress || !state.isAllowed) setLimitHeaders(reply, state)
    if (!state.isAllowed) throw new ServiceError(E.rateLimitExceeded, { detail: `address limit of ${resource}` })
  })
  app.addHook('onSend', async (request, reply, payload) => {
    const reservation = reservations.get(request)
    if (!reservation) return payload
    reservations.delete(request)
    if (AUTH_FAILURE_STATUSES.has(reply.statusCode)) {
      if (!reply.hasHeader('x-rate-limit-limit')) setLimitHeaders(reply, reservation.state)
    } else {
      await reservation.limiter.refund(reservation.key)
    }
    return payload
  })
}
