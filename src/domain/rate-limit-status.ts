import type { DomainDeps } from './deps.ts'
import { RATE_LIMITED_ENDPOINTS } from './rate-limit-table.ts'

export interface EndpointLimit {
  limit: number
  remaining: number
  /** Epoch seconds when the window ends. */
  reset: number
}

/**
 * GET /1.1/application/rate_limit_status.json: the state of every limited endpoint for the caller,
 * grouped by family, narrowed by `resources=` (comma-separated family names) when given.
 */
export function rateLimitStatus(
  deps: Pick<DomainDeps, 'clock' | 'settings'>,
  families: string[] | undefined,
  bearerTokenPaceLimit: number,
): Record<string, Record<string, EndpointLimit>> {
  const reset = Math.ceil(deps.clock.nowMs() / 1000) + deps.settings.rateLimitWindowSeconds
  const resources: Record<string, Record<string, EndpointLimit>> = {}
  for (const endpoint of RATE_LIMITED_ENDPOINTS) {
    if (families && !families.includes(endpoint.family)) continue
    const limit = endpoint.resource === '/oauth2/token' ? bearerTokenPaceLimit : endpoint.limit
    resources[endpoint.family] ??= {}
    resources[endpoint.family]![endpoint.resource] = { limit, remaining: limit, reset }
  }
  return resources
}
