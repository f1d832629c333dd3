import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { changeWithAudit } from '../audit.ts'
import { tokenSha256 } from '../revocations/events.ts'
import type { AccessTokenRecord, AppRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import type { RequestInput } from '../request.ts'
import { afterCharge, type Limited } from '../rate-limits.ts'
import { verifySignedRequest } from './verify-signed-request.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'

/** What this use case touches. */
export type InvalidateAccessTokenDeps = Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'observe'>

/** The limit every call counts against (the route's address limit too: src/web/plugins/rate-limit.ts). */
export const INVALIDATE_ACCESS_TOKEN_LIMIT = '/oauth/invalidate_token' satisfies RateLimitedResource

/**
 * service-spec §4.5, POST /1.1/oauth/invalidate_token: signed with the consumer and the access
 * token to kill, whatever its level. From the answer on, the token gets 401 code 89 everywhere.
 */
export async function invalidateAccessToken(deps: InvalidateAccessTokenDeps, input: RequestInput): Promise<Limited<{ accessToken: string }>> {
  const { app, token, limit } = await verifySignedRequest(deps, input, { tokenKind: 'access', charge: INVALIDATE_ACCESS_TOKEN_LIMIT })
  return afterCharge(limit, () => revoke(deps, input, app, token))
}

async function revoke(deps: InvalidateAccessTokenDeps, input: RequestInput, app: AppRecord, token: AccessTokenRecord): Promise<{ accessToken: string }> {
  // The revocation and its audit row in one unit.
  const revoked = await changeWithAudit(deps, async (tx, audit) => {
    if (!(await tx.accessTokens.revoke(token.token, deps.clock.nowMs()))) return false
    await audit({
      event: 'access_token.invalidated',
      appId: app.id,
      userId: token.userId,
      address: input.clientAddress,
      detail: { access_level: token.accessLevel },
      endedTokenSha256: tokenSha256(token.token),
    })
    return true
  })
  // A concurrent invalidation got there first: the token is dead either way, as the client asked.
  if (!revoked) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'already invalidated' })
  deps.observe?.tokenInvalidated('access_token', 'invalidate_token')
  return { accessToken: token.token }
}
