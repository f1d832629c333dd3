import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import type { RequestInput } from '../request.ts'
import { verifySignedRequest } from './verify-signed-request.ts'

/**
 * service-spec §4.5, POST /1.1/oauth/invalidate_token: signed with the consumer and the access
 * token to kill, whatever its level. From the answer on, the token gets 401 code 89 everywhere.
 */
export async function invalidateAccessToken(deps: DomainDeps, input: RequestInput): Promise<{ accessToken: string }> {
  const { app, token } = await verifySignedRequest(deps, input, { tokenKind: 'access' })
  // The revocation and its audit row in one unit.
  const revoked = await changeWithAudit(deps, async (tx, audit) => {
    if (!(await tx.accessTokens.revoke(token.token, deps.clock.nowMs()))) return false
    await audit({
      event: 'access_token.invalidated',
      appId: app.id,
      userId: token.userId,
      address: input.clientAddress,
      detail: { access_level: token.accessLevel },
    })
    return true
  })
  // A concurrent invalidation got there first: the token is dead either way, as the client asked.
  if (!revoked) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'already invalidated' })
  return { accessToken: token.token }
}
