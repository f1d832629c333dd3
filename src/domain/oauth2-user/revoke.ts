import { E } from '../../errors/catalogue.ts'
import { assertThat } from '../../errors/service-error.ts'
import { changeWithAudit } from '../audit.ts'
import { tokenSha256 } from '../revocations/events.ts'
import type { DomainDeps } from '../deps.ts'
import { afterCharge, admitCall, type Limited } from '../rate-limits.ts'
import { param, type RequestInput } from '../request.ts'
import { authenticateOAuth2Client } from './client-authentication.ts'
import { tokenRequestParams } from './token-request.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'

/** What this use case touches. */
export type RevokeUserTokenDeps = Pick<DomainDeps, 'stores' | 'clock' | 'limiters' | 'observe'>

/** The limit every call counts against (the route's address limit too: src/web/plugins/rate-limit.ts). */
export const REVOKE_LIMIT = '/2/oauth2/revoke' satisfies RateLimitedResource

/**
 * POST /2/oauth2/revoke (RFC 7009): the client ends an access or refresh token of its own. Either
 * ends the whole grant: the refresh token and every access token it made (§2.1 lets a server end
 * the grant with either; one live access token per grant makes it the same to the client). A token
 * that is unknown, another client's or already ended is answered the same (§2.2), and nothing changes.
 */
export async function revokeUserToken(deps: RevokeUserTokenDeps, input: RequestInput): Promise<Limited<{ revoked: true }>> {
  const params = tokenRequestParams(input)
  const { app } = await authenticateOAuth2Client(deps, { authorization: input.authorization, params })
  const { limit } = await admitCall(deps, REVOKE_LIMIT, { appId: app.id }, { input })
  return afterCharge(limit, async () => {
    const token = param(params, 'token')
    assertThat(token, E.oauth2InvalidRequest, { message: 'Missing required parameter [token].' })
    const found = await deps.stores.oauth2Grants.findToken(token)
    if (found?.grant.appId !== app.id) return { revoked: true as const }
    // The revocation, its audit row and its revocation event in one unit.
    const revoked = await changeWithAudit(deps, async (tx, audit) => {
      if (!(await tx.oauth2Grants.revoke(found.grant.id, deps.clock.nowMs()))) return false
      await audit({
        event: 'oauth2_grant.revoked',
        appId: app.id,
        userId: found.grant.userId,
        address: input.clientAddress ?? null,
        detail: { reason: 'revoke', token_type: found.token.kind },
        endedTokenSha256: tokenSha256(token),
      })
      return true
    })
    if (revoked) deps.observe?.tokenInvalidated('user_access_token', 'revoke')
    return { revoked: true as const }
  })
}
