import { parseBearerHeader } from '../protocol/oauth2/bearer-token.ts'
import type { AccessLevel, AppRecord, UserRecord } from '../storage/records.ts'
import type { DomainDeps } from './deps.ts'
import type { SignedRequestInput } from './oauth1/signed-request.ts'
import { verifySignedRequest } from './oauth1/verify-request.ts'
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
export async function identifyCaller(deps: DomainDeps, input: SignedRequestInput): Promise<Caller> {
  if (parseBearerHeader(input.authorization) !== undefined) {
    const { app, token } = await verifyBearer(deps, input.authorization, input.rateLimit)
    return { context: 'app', app, accessLevel: app.accessLevel, credential: token.token }
  }
  const verified = await verifySignedRequest(deps, input, { tokenKind: 'access-or-none' })
  const { app } = verified
  if (!verified.token) return { context: 'app', app, accessLevel: app.accessLevel, credential: app.consumerKey }
  return { context: 'user', app, user: verified.user, accessLevel: verified.token.accessLevel, credential: verified.token.token }
}
