import type { FastifyContextConfig, FastifyInstance, onRequestHookHandler } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { E, type ErrorDef } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { RefusalFamily } from '../json-errors.ts'
import type { RequestJournal } from './journal.ts'

// X's failures on demand (issue 47, item 5): "the next N calls to ENDPOINT answer as X does when …".
// Installed only in test mode (AppDeps.testKit). An injected failure is a ServiceError thrown before
// the route runs, so the route's own error renderer answers it: v1.1's `{"errors"}`, RFC 6749 bodies
// at /2/oauth2/*, v2 problems at /2/… — exactly as a real refusal there. It spends no nonce, no
// limit count and nothing single-use: the next call is judged as if the failure had not happened.

export type FaultKind = 'rate_limited' | 'over_capacity' | 'invalid_token' | 'too_often' | 'custom'

export interface FaultRule {
  /** `POST /oauth2/token`: the method and the route path, as the route is registered. */
  endpoint: string
  /** How many of the next calls to it fail. */
  times: number
  kind: FaultKind
  /** For `custom`: the status (400–599), X's code and the message. */
  status?: number | undefined
  code?: number | undefined
  message?: string | undefined
}

export interface Fault extends FaultRule {
  id: number
  /** Calls still to fail. */
  remaining: number
}

export interface FaultQueue {
  /** Throws UnknownEndpointError for an endpoint the service has no route for (once installFaults has seen its routes). */
  add(rule: FaultRule): Fault
  /** The faults with calls still to fail, oldest first. */
  list(): Fault[]
  clear(): void
  /** The fault the next call to the endpoint answers with, counted down; undefined when none. */
  take(endpoint: string): Fault | undefined
  /** The service's endpoints (`POST /oauth2/token`), filled by installFaults as the routes are declared. */
  readonly endpoints: Set<string>
}

/** A fault for an endpoint no route has: it would never fire. */
export class UnknownEndpointError extends Error {
  constructor(endpoint: string) {
    super(`no route answers ${endpoint}`)
    this.name = 'UnknownEndpointError'
  }
}

export function createFaultQueue(): FaultQueue {
  let faults: Fault[] = []
  let nextId = 1
  const endpoints = new Set<string>()
  return {
    endpoints,
    add(rule) {
      if (endpoints.size > 0 && !endpoints.has(rule.endpoint)) throw new UnknownEndpointError(rule.endpoint)
      const fault: Fault = { ...rule, id: nextId++, remaining: rule.times }
      faults.push(fault)
      return { ...fault }
    },
    list: () => faults.map((fault) => ({ ...fault })),
    clear() {
      faults = []
    },
    take(endpoint) {
      const fault = faults.find((candidate) => candidate.endpoint === endpoint)
      if (!fault) return undefined
      fault.remaining -= 1
      if (fault.remaining <= 0) faults = faults.filter((candidate) => candidate !== fault)
      return { ...fault }
    },
  }
}

/** X's refusal for each kind, in each family (twitter-behaviour §1.1, §2.8, §9). */
const INVALID_TOKEN: Record<RefusalFamily, ErrorDef> = { v1: E.invalidOrExpiredToken, oauth2: E.oauth2InvalidToken, v2: E.v2Unauthorized }

/** A failure asked for: the log records it as a refusal (info, its detail), never as a fault of the service (error, a stack). */
export class InjectedFailure extends ServiceError {}

/** The error an injected fault throws. */
export function injectedError(fault: Fault, family: RefusalFamily, limit: { limit: number; resetAtMs: number }): ServiceError {
  const detail = `injected by the test kit (fault ${fault.id})`
  switch (fault.kind) {
    case 'rate_limited':
      return new InjectedFailure(E.rateLimitExceeded, { detail, rateLimit: { limit: limit.limit, remaining: 0, resetAtMs: limit.resetAtMs } })
    case 'over_capacity':
      return new InjectedFailure(E.overCapacity, { detail })
    case 'invalid_token':
      return new InjectedFailure(INVALID_TOKEN[family], { detail })
    case 'too_often':
      return new InjectedFailure(E.unableToVerifyCredentials, { detail })
    case 'custom': {
      const status = fault.status ?? 400
      return new InjectedFailure({ status, code: fault.code ?? E.badRequest.code, message: fault.message ?? E.badRequest.message }, { detail })
    }
  }
}

/** A limit of this many calls when the route has none of its own. */
const DEFAULT_LIMIT = 15

/** Answers the next calls of each fault's endpoint with its failure, before the route runs. */
export function installFaults(app: FastifyInstance, queue: FaultQueue, journal: RequestJournal, domain: Pick<DomainDeps, 'clock' | 'settings'>): void {
  // Named: a test checks that no test-kit hook is installed outside test mode.
  const testKitFault: onRequestHookHandler = (request, _reply, done) => {
    const route = request.routeOptions.url
    const fault = route === undefined ? undefined : queue.take(`${request.method} ${route}`)
    if (!fault) return done()
    journal.injected(request, fault)
    const config = request.routeOptions.config as FastifyContextConfig | undefined
    const resource = config?.rateLimit
    const limit = (resource && domain.settings.rateLimits.get(resource)) || DEFAULT_LIMIT
    // A window that began now: the reset is always in the future.
    const resetAtMs = domain.clock.nowMs() + domain.settings.rateLimitWindowSeconds * 1000
    done(injectedError(fault, config?.refusals ?? 'v1', { limit, resetAtMs }))
  }
  app.addHook('onRequest', testKitFault)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) queue.endpoints.add(`${method} ${route.url}`)
  })
}
