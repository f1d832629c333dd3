import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { AccessTokenRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import { handOutAccessToken } from './issue-access-token.ts'
import type { SignedRequestInput } from './signed-request.ts'
import { verifySignedRequest } from './verify-request.ts'

/** Wrong verifiers a request token survives: a 7-digit PIN must not be guessable. */
export const MAX_VERIFIER_FAILURES = 3

/**
 * service-spec §4.4, POST /oauth/access_token: signed with the consumer and the authorized request
 * token, with its verifier. The request token is consumed once; the person's access token for the
 * app at that level is returned (the same one as before unless it was invalidated).
 */
export async function exchangeVerifier(
  deps: DomainDeps,
  input: SignedRequestInput,
): Promise<{ accessToken: AccessTokenRecord; user: UserRecord }> {
  const { token, request } = await verifySignedRequest(deps, input, { tokenKind: 'request' })
  const verifier = request.protocol.get('oauth_verifier') ?? ''
  // One transaction: the request token is used up only together with the access token handed out
  // for it and its audit row, so a failure on the way (503) leaves it to be exchanged again.
  const exchanged = await deps.stores.transaction(async (tx) => {
    // One atomic step: used once, and only with the verifier the person was given.
    const consumed = await tx.requestTokens.consume(token.token, verifier, deps.clock.nowMs())
    if (!consumed) return undefined
    if (consumed.userId === null) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'request token was never authorized' })
    const user = await tx.users.findById(consumed.userId)
    if (!user) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'the authorizing user no longer exists' })
    const grant = { appId: consumed.appId, userId: user.id, accessLevel: consumed.accessLevel }
    const accessToken = await handOutAccessToken(tx, deps.clock, grant, { via: 'exchange', address: input.clientAddress })
    return { accessToken, user }
  })
  if (exchanged) return exchanged
  const now = await deps.stores.requestTokens.findByToken(token.token)
  const isStillUsable = now !== undefined && (now.status === 'authorized' || now.status === 'issued') && now.expiresAtMs > deps.clock.nowMs()
  if (!isStillUsable) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'request token already exchanged' })
  await deps.stores.requestTokens.recordVerifierFailure(token.token, MAX_VERIFIER_FAILURES)
  throw new ServiceError(E.couldNotAuthenticate, { detail: 'wrong or missing oauth_verifier' })
}
