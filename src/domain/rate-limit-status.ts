import type { EndpointLimits } from './deps.ts'
import type { Caller } from './identify-caller.ts'
import { RATE_LIMITED_ENDPOINTS } from './rate-limit-table.ts'
import { limitSubject } from './rate-limits.ts'

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
    const subject =
      endpoint.countedBy === 'address'
        ? limitSubject.address(address)
        : endpoint.countedBy === 'caller' && caller.context === 'user'
          ? limitSubject.user(caller.app.id, caller.user.id)
          : limitSubject.app(caller.app.id)
    const state = await limiter.peek(subject)
    resources[endpoint.family] ??= {}
    resources[endpoint.family]![endpoint.resource] = { limit: state.limit, remaining: state.remaining, reset: Math.ceil(state.resetAtMs / 1000) }
  }
  return resources
}
