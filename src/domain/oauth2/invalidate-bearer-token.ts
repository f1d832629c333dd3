import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { parseOAuthHeader } from '../../protocol/oauth1/auth-header.ts'
import { canonicalBearerToken, parseBearerHeader } from '../../protocol/oauth2/bearer-token.ts'
import type { AppRecord } from '../../storage/records.ts'
import { recordAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import type { SignedRequestInput } from '../oauth1/signed-request.ts'
import { verifySignedRequest } from '../oauth1/verify-request.ts'
import { countCall, limitSubject } from '../rate-limits.ts'
import { bodyParams, formParams, param } from '../request-params.ts'
import { authenticateClient, readClientCredentials } from './client-credentials.ts'
import { verifyBearer } from './verify-bearer.ts'

/**
 * service-spec §4.7, POST /oauth2/invalidate_token. The caller proves it speaks for the app in one
 * of the three ways clients use: OAuth 1.0a signed by the app's owner (the documented way), the
 * app's Basic credentials, or `Bearer` with the very token being invalidated. The token named in
 * access_token (query or body, compared in canonical form) must be that app's live bearer token.
 */
export async function invalidateBearerToken(deps: DomainDeps, input: SignedRequestInput): Promise<{ accessToken: string }> {
  const { app, userId, via } = await authenticateInvalidation(deps, input)
  const named = param(formParams(input), 'access_token')
  assertThat(named, E.unableToVerifyCredentials, { detail: 'access_token is missing' })
  const canonical = canonicalBearerToken(named)
  const presentedBearer = parseBearerHeader(input.authorization)
  if (presentedBearer !== undefined) {
    assertThat(canonicalBearerToken(presentedBearer) === canonical, E.unableToVerifyCredentials, { detail: 'Bearer names another token' })
  }
  const token = await deps.stores.bearerTokens.findByToken(canonical)
  const isLive = token !== undefined && token.revokedAtMs === null && token.appId === app.id
  if (!isLive || !(await deps.stores.bearerTokens.revoke(canonical, deps.clock.nowMs()))) {
    throw new ServiceError(E.unableToVerifyCredentials, { detail: 'no such live bearer token for this app' })
  }
  await recordAudit(deps, { event: 'bearer_token.invalidated', appId: app.id, userId, address: input.clientAddress, detail: { via } })
  deps.observe?.tokenInvalidated('bearer_token', 'invalidate_token')
  return { accessToken: canonical }
}

/** Who asked: the app, the owner when they signed with OAuth 1.0a, and which of the three ways. */
interface Invalidator {
  app: AppRecord
  userId: string | null
  via: 'oauth1' | 'bearer' | 'basic'
}

async function authenticateInvalidation(deps: DomainDeps, input: SignedRequestInput): Promise<Invalidator> {
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
