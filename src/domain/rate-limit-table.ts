/**
 * Every rate-limited endpoint, grouped in resource families as Twitter's rate_limit_status groups
 * them, with its default limit per window. `context` says how a call is counted: per app for
 * app-only calls, per app and user for user-context calls, per client address for the pages.
 */
export interface RateLimitedEndpoint {
  family: string
  resource: string
  limit: number
}

export const RATE_LIMITED_ENDPOINTS: readonly RateLimitedEndpoint[] = [
  { family: 'oauth', resource: '/oauth/request_token', limit: 300 },
  { family: 'oauth', resource: '/oauth/access_token', limit: 300 },
  { family: 'oauth', resource: '/oauth/authorize', limit: 300 },
  { family: 'oauth', resource: '/oauth/authenticate', limit: 300 },
  { family: 'oauth', resource: '/oauth/invalidate_token', limit: 300 },
  { family: 'oauth2', resource: '/oauth2/token', limit: 60 },
  { family: 'oauth2', resource: '/oauth2/invalidate_token', limit: 300 },
  { family: 'oauth2', resource: '/oauth2/introspect', limit: 1800 },
  { family: 'account', resource: '/account/verify_credentials', limit: 75 },
  { family: 'application', resource: '/application/rate_limit_status', limit: 180 },
]
