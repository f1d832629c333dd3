import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { AccessTokenRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import { handOutAccessToken } from './issue-access-token.ts'
import type { RequestInput } from '../request.ts'
import { afterCharge, type Limited } from '../rate-limits.ts'
import { verifySignedRequest } from './verify-signed-request.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'

/** What this use case touches. */
export type ExchangeVerifierDeps = Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'observe'>

/** The limit every call counts against (the route's address limit too: src/web/plugins/rate-limit.ts). */
export const ACCESS_TOKEN_LIMIT = '/oauth/access_token' satisfies RateLimitedResource

/** Wrong verifiers a request token survives: a 7-digit PIN must not be guessable. */
export const MAX_VERIFIER_FAILURES = 3

/**
 * service-spec §4.4, POST /oauth/access_token: signed with the consumer and the authorized request
 * token, with its verifier. The request token is consumed once; the person's access token for the
 * app at that level is returned (the same one as before unless it was invalidated).
 */
export async function exchangeVerifier(
  deps: ExchangeVerifierDeps,
  input: RequestInput,
): Promise<Limited<{ accessToken: AccessTokenRecord; user: UserRecord }>> {
  const { token, request, limit } = await verifySignedRequest(deps, input, { tokenKind: 'request', charge: ACCESS_TOKEN_LIMIT })
  return afterCharge(limit, () => redeem(deps, input, token.token, request.protocol.get('oauth_verifier') ?? ''))
}

async function redeem(deps: ExchangeVerifierDeps, input: RequestInput, requestToken: string, verifier: string): Promise<{ accessToken: AccessTokenRecord; user: UserRecord }> {
  // One transaction: the request token is used up only together with the access token handed out
  // for it and its audit row, so a failure on the way (503) leaves it to be exchanged again. A wrong
  // verifier's counted failure is committed too (the unit returns instead of throwing).
  const attempt = await deps.stores.transaction(async (tx) => {
    // One atomic step decides: used once, only with the verifier the person was given, and never
    // after the third wrong one, however many attempts arrive together.
    const redeemed = await tx.requestTokens.redeemVerifier(requestToken, verifier, MAX_VERIFIER_FAILURES, deps.clock.nowMs())
    if (redeemed.outcome !== 'redeemed') return redeemed
    const { record } = redeemed
    if (record.userId === null) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'request token was never authorized' })
    const user = await tx.users.findById(record.userId)
    if (!user) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'the authorizing user no longer exists' })
    // Thrown inside the unit: the request token stays as it was, to be exchanged once they are enabled again.
    if (user.isDisabled) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'the authorizing user is disabled' })
    const grant = { appId: record.appId, userId: user.id, accessLevel: record.accessLevel }
    const accessToken = await handOutAccessToken(tx, deps.clock, grant, { via: 'exchange', address: input.clientAddress })
    return { outcome: 'exchanged' as const, accessToken, user }
  })
  if (attempt.outcome === 'exchanged') {
    deps.observe?.tokenIssued('access_token')
    return attempt
  }
  if (attempt.outcome === 'not-redeemable') throw new ServiceError(E.invalidOrExpiredToken, { detail: 'request token already exchanged, dead or expired' })
  throw new ServiceError(E.couldNotAuthenticate, { detail: `wrong or missing oauth_verifier (failure ${attempt.failures} of ${MAX_VERIFIER_FAILURES})` })
}
