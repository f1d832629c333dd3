// Who is calling, by the credentials of either protocol: the one module of the domain that knows
// both, so that domain/oauth1 and domain/oauth2 never import each other (ESLint enforces it).
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { parseOAuthHeader } from '../protocol/oauth1/auth-header.ts'
import { parseBearerHeader } from '../protocol/oauth2/bearer-token.ts'
import type { AccessLevel, AppRecord, UserRecord } from '../storage/records.ts'
import type { DomainDeps } from './deps.ts'
import { countCall, limitSubject } from './rate-limits.ts'
import { bodyParams, type RequestInput } from './request.ts'
import { authenticateClient, readClientCredentials } from './oauth2/client-credentials.ts'
import { verifySignedRequest } from './oauth1/verify-signed-request.ts'
import { verifyBearer } from './oauth2/verify-bearer.ts'

export type Caller =
  | { context: 'app'; app: AppRecord; accessLevel: AccessLevel; credential: string }
  | { context: 'user'; app: AppRecord; user: UserRecord; accessLevel: AccessLevel; credential: string }

/**
 * Who is calling an API route, by any credential Latchkey issues: `Bearer` (app-only), OAuth 1.0a
 * with an access token (user context), or OAuth 1.0a signed by the consumer alone (app-only).
 * Throws the exact Twitter error otherwise. The service's own routes and the exported resource-
 * server verifier both use this one function.
 */
export async function identifyCaller(deps: DomainDeps, input: RequestInput): Promise<Caller> {
  if (parseBearerHeader(input.authorization) !== undefined) {
    const { app, token } = await verifyBearer(deps, input.authorization, input.rateLimit)
    return { context: 'app', app, accessLevel: app.accessLevel, credential: token.token }
  }
  const verified = await verifySignedRequest(deps, input, { tokenKind: 'access-or-none' })
  const { app } = verified
  if (!verified.token) return { context: 'app', app, accessLevel: app.accessLevel, credential: app.consumerKey }
  return { context: 'user', app, user: verified.user, accessLevel: verified.token.accessLevel, credential: verified.token.token }
}

/** Who asked: the app, the owner when they signed with OAuth 1.0a, and which of the three ways. */
export interface Invalidator {
  app: AppRecord
  userId: string | null
  via: 'oauth1' | 'bearer' | 'basic'
}

/** POST /oauth2/invalidate_token's caller (see invalidate-bearer-token.ts). */
export async function identifyTokenInvalidator(deps: DomainDeps, input: RequestInput): Promise<Invalidator> {
  if (parseOAuthHeader(input.authorization) !== undefined) {
    // Counted per app whichever way the app proves itself, as the call acts on the app's token.
    const { app, token } = await verifySignedRequest(deps, { ...input, rateLimit: undefined }, { tokenKind: 'access' })
    // Only the app's owner may revoke its app-only token (403 code 220 for anyone else).
    if (token.userId !== app.ownerId) throw new ServiceError(E.credentialsDoNotAllowResource, { detail: 'not the app owner' })
    await countCall(deps, input.rateLimit, limitSubject.app(app.id))
    return { app, userId: token.userId, via: 'oauth1' }
  }
  if (parseBearerHeader(input.authorization) !== undefined) {
    return { app: (await verifyBearer(deps, input.authorization, input.rateLimit)).app, userId: null, via: 'bearer' }
  }
  const credentials = readClientCredentials(input.authorization, bodyParams(input))
  return { app: await authenticateClient(deps, credentials, { rateLimit: input.rateLimit }), userId: null, via: 'basic' }
}
