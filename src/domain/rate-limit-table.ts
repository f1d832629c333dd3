import { E, type ErrorDef } from '../errors/catalogue.ts'

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
  /**
   * A pace rule rather than a rate limit: its limit is the setting named here (not `rateLimits`),
   * and a call past it gets this error instead of 429 code 88.
   */
  pace?: { setting: 'bearerTokenCallsPerWindow'; overLimit: ErrorDef }
}

export const RATE_LIMITED_ENDPOINTS = [
  { family: 'oauth', resource: '/oauth/request_token', limit: 300, countedBy: 'app' },
  { family: 'oauth', resource: '/oauth/access_token', limit: 300, countedBy: 'app' },
  { family: 'oauth', resource: '/oauth/authorize', limit: 300, countedBy: 'address' },
  { family: 'oauth', resource: '/oauth/authenticate', limit: 300, countedBy: 'address' },
  { family: 'oauth', resource: '/oauth/invalidate_token', limit: 300, countedBy: 'caller' },
  // Twitter's pace rule of POST /oauth2/token: past it, 403 code 99 rather than 429.
  {
    family: 'oauth2',
    resource: '/oauth2/token',
    limit: 60,
    countedBy: 'app',
    pace: { setting: 'bearerTokenCallsPerWindow', overLimit: E.unableToVerifyCredentials },
  },
  { family: 'oauth2', resource: '/oauth2/invalidate_token', limit: 300, countedBy: 'app' },
  { family: 'oauth2', resource: '/oauth2/introspect', limit: 1800, countedBy: 'app' },
  { family: 'account', resource: '/account/verify_credentials', limit: 75, countedBy: 'caller' },
  // OAuth 2.0 user context (X's v2 paths).
  { family: 'oauth2_user', resource: '/2/oauth2/token', limit: 300, countedBy: 'app' },
  { family: 'oauth2_user', resource: '/2/oauth2/revoke', limit: 300, countedBy: 'app' },
  { family: 'oauth2_user', resource: '/i/oauth2/authorize', limit: 300, countedBy: 'address' },
  { family: 'users', resource: '/2/users/me', limit: 75, countedBy: 'caller' },
  { family: 'application', resource: '/application/rate_limit_status', limit: 180, countedBy: 'caller' },
  // Resource servers (docs/resource-servers.md): their checks, and their APIs' calls when a check charges them.
  { family: 'resource_servers', resource: '/latchkey/check-request', limit: 45000, countedBy: 'app' },
  { family: 'resource_servers', resource: '/latchkey/resource-api', limit: 900, countedBy: 'caller' },
  // Forward auth (a reverse proxy's check of each request): failures per client address only; a
  // verified call charges no app (src/domain/forward-auth.ts).
  { family: 'resource_servers', resource: '/latchkey/forward-auth', limit: 1800, countedBy: 'caller' },
] as const satisfies readonly RateLimitedEndpoint[]

/** The name of a rate-limited endpoint: a typo is a compile error, not a limit that never applies. */
export type RateLimitedResource = (typeof RATE_LIMITED_ENDPOINTS)[number]['resource']

const BY_RESOURCE: ReadonlyMap<string, RateLimitedEndpoint> = new Map(RATE_LIMITED_ENDPOINTS.map((endpoint) => [endpoint.resource, endpoint]))

/** The table's row of a resource. */
export function rateLimitedEndpoint(resource: RateLimitedResource): RateLimitedEndpoint {
  return BY_RESOURCE.get(resource) as RateLimitedEndpoint
}

/** The effective limit of every endpoint: defaults, then overrides (or its pace setting), times the multiplier. */
export function effectiveLimits(options: {
  overrides: Record<string, number>
  settings: Record<NonNullable<RateLimitedEndpoint['pace']>['setting'], number>
  multiplier: number
}): Map<RateLimitedResource, number> {
  const limits = new Map<RateLimitedResource, number>()
  for (const endpoint of RATE_LIMITED_ENDPOINTS as readonly RateLimitedEndpoint[]) {
    const base = endpoint.pace ? options.settings[endpoint.pace.setting] : (options.overrides[endpoint.resource] ?? endpoint.limit)
    limits.set(endpoint.resource as RateLimitedResource, Math.max(1, Math.floor(base * options.multiplier)))
  }
  return limits
}

/**
 * The limits that guard no endpoint of the table above, each per rate-limit window and never
 * multiplied (`rateLimitMultiplier` is for the API's clients): the admin API's calls per admin token,
 * and the developer console's and settings pages' requests per address, changes per account and
 * sign-ups per address. The sign-in throttle's are settings (`signInMaxFailures`).
 */
export const SERVICE_LIMITS = {
  adminCalls: { name: 'admin', limit: 6000 },
  consolePages: { name: 'console-pages', limit: 300 },
  consoleChanges: { name: 'console-changes', limit: 100 },
  consoleSignUps: { name: 'console-sign-ups', limit: 10 },
} as const

export type ServiceLimit = keyof typeof SERVICE_LIMITS
