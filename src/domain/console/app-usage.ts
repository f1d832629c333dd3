import type { AppRecord } from '../../storage/records.ts'
import type { EndpointLimits } from '../deps.ts'
import { RATE_LIMITED_ENDPOINTS } from '../rate-limit-table.ts'
import { rateLimitStatus, type EndpointLimit } from '../rate-limit-status.ts'

export interface EndpointUsage extends EndpointLimit {
  resource: string
  used: number
}

/**
 * An app's own budget at each endpoint, as rate_limit_status counts it for an app-only call. The
 * endpoints counted per address (the consent pages) are left out: they are no app's budget.
 */
export async function appUsage(deps: EndpointLimits, app: AppRecord): Promise<EndpointUsage[]> {
  const caller = { context: 'app', kind: 'oauth1_app', app, accessLevel: app.accessLevel, credential: app.consumerKey } as const
  const families = await rateLimitStatus(deps, caller, '0.0.0.0', undefined)
  return RATE_LIMITED_ENDPOINTS.filter((endpoint) => endpoint.countedBy !== 'address').flatMap((endpoint) => {
    const state = families[endpoint.family]?.[endpoint.resource]
    return state ? [{ resource: endpoint.resource, ...state, used: state.limit - state.remaining }] : []
  })
}
