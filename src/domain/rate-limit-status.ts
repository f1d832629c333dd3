import type { EndpointLimits } from './deps.ts'
import type { Caller } from './identify-caller.ts'
import { RATE_LIMITED_ENDPOINTS, type RateLimitedResource } from './rate-limit-table.ts'
import { chargedSubject } from './rate-limits.ts'

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
 */
export async function rateLimitStatus(
  deps: EndpointLimits,
  caller: Caller,
  address: string,
  families: string[] | undefined,
): Promise<Record<string, Record<string, EndpointLimit>>> {
  const resources: Record<string, Record<string, EndpointLimit>> = {}
  for (const endpoint of RATE_LIMITED_ENDPOINTS) {
    const limiter = deps.limiters.endpoints.get(endpoint.resource)
    if (!limiter || (families && !families.includes(endpoint.family))) continue
    const payer = { appId: caller.app.id, userId: caller.context === 'user' ? caller.user.id : undefined }
    const subject = chargedSubject(endpoint.countedBy, { payer, address })
    const state = await limiter.peek(subject)
    resources[endpoint.family] ??= {}
    resources[endpoint.family]![endpoint.resource] = { limit: state.limit, remaining: state.remaining, reset: Math.ceil(state.resetAtMs / 1000) }
  }
  return resources
}
