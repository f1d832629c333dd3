/**
 * Every rate-limited endpoint, grouped in resource families as Twitter's rate_limit_status groups
 * them, with its default limit per window (15 minutes by default). The config's `rateLimits`
 * overrides any of them; `rateLimitMultiplier` multiplies them all.
 */
export interface RateLimitedEndpoint {
  family: string
  resource: string
  limit: number
  /** Whose budget a call spends: the app's, the app's and person's when signed with an access token, or the address's. */
  countedBy: 'app' | 'caller' | 'address'
}

export const RATE_LIMITED_ENDPOINTS: readonly RateLimitedEndpoint[] = [
  { family: 'oauth', resource: '/oauth/request_token', limit: 300, countedBy: 'app' },
  { family: 'oauth', resource: '/oauth/access_token', limit: 300, countedBy: 'app' },
  { family: 'oauth', resource: '/oauth/authorize', limit: 300, countedBy: 'address' },
  { family: 'oauth', resource: '/oauth/authenticate', limit: 300, countedBy: 'address' },
  { family: 'oauth', resource: '/oauth/invalidate_token', limit: 300, countedBy: 'caller' },
  // The pace rule of POST /oauth2/token: past it, 403 code 99 rather than 429 (setting bearerTokenPace).
  { family: 'oauth2', resource: '/oauth2/token', limit: 60, countedBy: 'app' },
  { family: 'oauth2', resource: '/oauth2/invalidate_token', limit: 300, countedBy: 'app' },
  { family: 'oauth2', resource: '/oauth2/introspect', limit: 1800, countedBy: 'app' },
  { family: 'account', resource: '/account/verify_credentials', limit: 75, countedBy: 'caller' },
  { family: 'application', resource: '/application/rate_limit_status', limit: 180, countedBy: 'caller' },
]

export type RateLimitedResource = string

/** The effective limit of every endpoint: defaults, then overrides, times the multiplier. */
export function effectiveLimits(options: {
  overrides: Record<string, number>
  bearerTokenPace: number
  multiplier: number
}): Map<RateLimitedResource, number> {
  const limits = new Map<string, number>()
  for (const endpoint of RATE_LIMITED_ENDPOINTS) {
    const base = endpoint.resource === '/oauth2/token' ? options.bearerTokenPace : (options.overrides[endpoint.resource] ?? endpoint.limit)
    limits.set(endpoint.resource, Math.max(1, Math.floor(base * options.multiplier)))
  }
  return limits
}
