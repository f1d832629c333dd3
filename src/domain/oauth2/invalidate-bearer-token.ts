import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { canonicalBearerToken, parseBearerHeader } from '../../protocol/oauth2/bearer-token.ts'
import { changeWithAudit } from '../audit.ts'
import { tokenSha256 } from '../revocations/events.ts'
import type { DomainDeps } from '../deps.ts'
import type { RequestInput } from '../request.ts'
import { formParams, param } from '../request.ts'
import { identifyTokenInvalidator, type Invalidator } from '../identify-caller.ts'
import { afterCharge, type Limited } from '../rate-limits.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'

/** What this use case touches. */
export type InvalidateBearerTokenDeps = Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'observe'>

/** The limit every call counts against (the route's address limit too: src/web/plugins/rate-limit.ts). */
export const INVALIDATE_BEARER_TOKEN_LIMIT = '/oauth2/invalidate_token' satisfies RateLimitedResource

/**
 * service-spec §4.7, POST /oauth2/invalidate_token. The caller proves it speaks for the app in one
 * of the three ways clients use: OAuth 1.0a signed by the app's owner (the documented way), the
 * app's Basic credentials, or `Bearer` with the very token being invalidated. The token named in
 * access_token (query or body, compared in canonical form) must be that app's live bearer token.
 */
export async function invalidateBearerToken(deps: InvalidateBearerTokenDeps, input: RequestInput): Promise<Limited<{ accessToken: string }>> {
  const { app, userId, via, limit } = await identifyTokenInvalidator(deps, input, INVALIDATE_BEARER_TOKEN_LIMIT)
  return afterCharge(limit, () => revoke(deps, input, { app, userId, via }))
}

async function revoke(deps: InvalidateBearerTokenDeps, input: RequestInput, { app, userId, via }: Invalidator): Promise<{ accessToken: string }> {
  const named = param(formParams(input), 'access_token')
  assertThat(named, E.unableToVerifyCredentials, { detail: 'access_token is missing' })
  const canonical = canonicalBearerToken(named)
  const presentedBearer = parseBearerHeader(input.authorization)
  if (presentedBearer !== undefined) {
    assertThat(canonicalBearerToken(presentedBearer) === canonical, E.unableToVerifyCredentials, { detail: 'Bearer names another token' })
  }
  // The check, the revocation and its audit row in one unit.
  const revoked = await changeWithAudit(deps, async (tx, audit) => {
    const token = await tx.bearerTokens.findByToken(canonical)
    const isLive = token !== undefined && token.revokedAtMs === null && token.appId === app.id
    if (!isLive || !(await tx.bearerTokens.revoke(canonical, deps.clock.nowMs()))) return false
    await audit({ event: 'bearer_token.invalidated', appId: app.id, userId, address: input.clientAddress, detail: { via }, endedTokenSha256: tokenSha256(canonical) })
    return true
  })
  if (!revoked) throw new ServiceError(E.unableToVerifyCredentials, { detail: 'no such live bearer token for this app' })
  deps.observe?.tokenInvalidated('bearer_token', 'invalidate_token')
  return { accessToken: canonical }
}
