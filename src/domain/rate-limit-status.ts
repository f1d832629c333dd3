import type { EndpointLimits } from './deps.ts'
import type { Caller } from './identify-caller.ts'
import { RATE_LIMITED_ENDPOINTS, type RateLimitedResource } from './rate-limit-table.ts'
import { chargedSubject } from './rate-limits.ts'
import type { LimitState } from '../storage/types.ts'

/** The limit every call counts against. */
export const RATE_LIMIT_STATUS_LIMIT = '/application/rate_limit_status' satisfies RateLimitedResource

export interface EndpointLimit {
  limit: number
  remaining: number
  /** Epoch seconds when the window ends. */
  reset: number
}

/**
 * GET /1.1/application/rate_limit_status.json: the caller's exact state at every limited endpoint
 * (its own budget, or its address's for the pages), grouped by family, narrowed by `resources=`.
 * `counted`: the state of this very call's own limit as its charge left it (no need to look again).
 */
export async function rateLimitStatus(
  deps: EndpointLimits,
  caller: Caller,
  address: string,
  families: string[] | undefined,
  counted?: LimitState,
): Promise<Record<string, Record<string, EndpointLimit>>> {
  const payer = { appId: caller.app.id, userId: caller.context === 'user' ? caller.user.id : undefined }
  const shown = RATE_LIMITED_ENDPOINTS.filter((endpoint) => deps.limiters.endpoints.has(endpoint.resource) && (!families || families.includes(endpoint.family)))
  // Looked at together: where the counts are in Redis, their commands leave in one write.
  const states = await Promise.all(
    shown.map((endpoint) =>
      counted && endpoint.resource === RATE_LIMIT_STATUS_LIMIT
        ? counted
        : deps.limiters.endpoints.get(endpoint.resource)!.peek(chargedSubject(endpoint.countedBy, { payer, address })),
    ),
  )
  const resources: Record<string, Record<string, EndpointLimit>> = {}
  shown.forEach((endpoint, i) => {
    const state = states[i]!
    resources[endpoint.family] ??= {}
    resources[endpoint.family]![endpoint.resource] = { limit: state.limit, remaining: state.remaining, reset: Math.ceil(state.resetAtMs / 1000) }
  })
  return resources
}
