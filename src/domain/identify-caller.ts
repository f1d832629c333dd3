// Who is calling, by the credentials of either protocol: the one module of the domain that knows
// both, so that domain/oauth1 and domain/oauth2 never import each other (ESLint enforces it).
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { parseOAuthHeader } from '../protocol/oauth1/auth-header.ts'
import { parseBearerHeader } from '../protocol/oauth2/bearer-token.ts'
import type { AccessLevel, AppRecord, BearerTokenRecord, UserRecord } from '../storage/records.ts'
import type { DomainDeps } from './deps.ts'
import type { RateLimitedResource } from './rate-limit-table.ts'
import { admitCall, type Limited } from './rate-limits.ts'
import { bodyParams, type RequestInput } from './request.ts'
import { authenticateAppClient, readClientCredentials } from './oauth2/client-credentials.ts'
import { verifySignedRequest } from './oauth1/verify-signed-request.ts'
import { bearerCallerVerified, verifyBearer } from './oauth2/verify-bearer.ts'
import { findUserTokenHolder } from './oauth2-user/user-token.ts'

/** What this use case touches. */
export type IdentifyCallerDeps = Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'observe'>

/** Which kind of credential a caller presented. */
export type TokenKind = 'oauth1_user' | 'oauth1_app' | 'bearer' | 'oauth2_user'

export type Caller =
  | { context: 'app'; kind: 'oauth1_app' | 'bearer'; app: AppRecord; accessLevel: AccessLevel; credential: string }
  /** `scopes`: only for an OAuth 2.0 user access token, what its grant allows within the app's level (its `accessLevel` follows them). */
  | { context: 'user'; kind: 'oauth1_user' | 'oauth2_user'; app: AppRecord; user: UserRecord; accessLevel: AccessLevel; credential: string; scopes?: string[] }

/**
 * Who is calling an API route, by any credential Latchkey issues: `Bearer` (an OAuth 2.0 user
 * access token, with its scopes, or an app-only token), OAuth 1.0a
 * with an access token (user context), or OAuth 1.0a signed by the consumer alone (app-only).
 * Throws the exact Twitter error otherwise. The service's own routes and the exported resource-
 * server verifier both use this one function; `charge` names the limit the call is counted against
 * (null for a resource server's own API, which Latchkey does not limit).
 */
export async function identifyCaller(deps: IdentifyCallerDeps, input: RequestInput, charge: RateLimitedResource | null): Promise<Limited<{ caller: Caller }>> {
  const presented = parseBearerHeader(input.authorization)
  if (presented !== undefined) {
    const holder = await findUserTokenHolder(deps, presented)
    if (holder) {
      const { app, user, scopes, accessLevel } = holder
      const { limit } = await admitCall(deps, charge, { appId: app.id, userId: user.id }, { input })
      return { caller: { context: 'user', kind: 'oauth2_user', app, user, accessLevel, credential: presented, scopes }, limit }
    }
    const { app, token, limit } = await admitBearer(deps, input, charge)
    return { caller: { context: 'app', kind: 'bearer', app, accessLevel: app.accessLevel, credential: token.token }, limit }
  }
  const verified = await verifySignedRequest(deps, input, { tokenKind: 'access-or-none', charge })
  const { app, limit } = verified
  if (!verified.token) return { caller: { context: 'app', kind: 'oauth1_app', app, accessLevel: app.accessLevel, credential: app.consumerKey }, limit }
  return { caller: { context: 'user', kind: 'oauth1_user', app, user: verified.user, accessLevel: verified.token.accessLevel, credential: verified.token.token }, limit }
}

/** Who asked: the app, the owner when they signed with OAuth 1.0a, and which of the three ways. */
export interface Invalidator {
  app: AppRecord
  userId: string | null
  via: 'oauth1' | 'bearer' | 'basic'
}

/**
 * POST /oauth2/invalidate_token's caller (see invalidate-bearer-token.ts), charged per app
 * whichever way the app proves itself, as the call acts on the app's token.
 */
export async function identifyTokenInvalidator(deps: IdentifyCallerDeps, input: RequestInput, charge: RateLimitedResource): Promise<Limited<Invalidator>> {
  if (parseOAuthHeader(input.authorization) !== undefined) {
    const { app, token, limit } = await verifySignedRequest(deps, input, { tokenKind: 'access', charge })
    // Only the app's owner may revoke its app-only token (403 code 220 for anyone else).
    if (token.userId !== app.ownerId) throw new ServiceError(E.credentialsDoNotAllowResource, { detail: 'not the app owner', rateLimit: limit })
    return { app, userId: token.userId, via: 'oauth1', limit }
  }
  if (parseBearerHeader(input.authorization) !== undefined) {
    const { app, limit } = await admitBearer(deps, input, charge)
    return { app, via: 'bearer', userId: null, limit }
  }
  const app = await authenticateAppClient(deps, readClientCredentials(input.authorization, bodyParams(input)))
  const { limit } = await admitCall(deps, charge, { appId: app.id }, { input })
  return { app, via: 'basic', userId: null, limit }
}

/**
 * An app-only bearer token's caller, admitted. Its lookup may be the validity cache's: when the
 * admission finds the generation moved, the token is verified again as a request arriving now
 * would be, and a refusal gives the call back.
 */
async function admitBearer(deps: IdentifyCallerDeps, input: RequestInput, charge: RateLimitedResource | null): Promise<Limited<{ app: AppRecord; token: BearerTokenRecord }>> {
  let verified = await verifyBearer(deps, input.authorization)
  const admitted = await admitCall(deps, charge, { appId: verified.app.id }, { input, lookedUp: verified.lookedUp }).catch((error: unknown) => {
    // Refused by a limit (or an outage) after its credential was verified: a verified caller all the same.
    bearerCallerVerified(deps, verified.app)
    throw error
  })
  if (!admitted.lookupIsCurrent) {
    verified = await verifyBearer(deps, input.authorization).catch(async (error: unknown) => {
      await admitted.refund()
      throw error
    })
  }
  bearerCallerVerified(deps, verified.app)
  return { app: verified.app, token: verified.token, limit: admitted.limit }
}
