import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { canonicalBearerToken, parseBearerHeader } from '../../protocol/oauth2/bearer-token.ts'
import type { AppRecord, BearerTokenRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import type { BearerVerificationResult } from '../observe.ts'

/**
 * Who is calling with `Authorization: Bearer`: the app of a live bearer token. An unknown or
 * invalidated token gets 401 code 89; the token of a suspended app 401 code 416. `lookedUp` is the
 * lookup they came from, for the call's admission to confirm (rate-limits.ts admitCall); a refusal
 * is observed here, a verified caller once (bearerCallerVerified).
 */
export async function verifyBearer(
  deps: Pick<DomainDeps, 'stores' | 'observe'>,
  authorization: string | undefined,
): Promise<{ app: AppRecord; token: BearerTokenRecord; lookedUp: object }> {
  const presented = parseBearerHeader(authorization)
  const observed = (result: BearerVerificationResult) => deps.observe?.bearerVerification(result)
  if (presented === undefined) {
    observed('malformed')
    throw new ServiceError(E.badAuthenticationData, { detail: 'no bearer token' })
  }
  // The app comes in the same query as the token.
  const found = await deps.stores.credentials.findBearerTokenWithApp(canonicalBearerToken(presented))
  // A suspended app's token is an invalid token to the observer (the app's state is in its own audit trail).
  const isLive = found !== undefined && found.token.revokedAtMs === null && found.app !== undefined && !found.app.isSuspended
  if (!isLive) observed('invalid_token')
  if (!found || found.token.revokedAtMs !== null) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'bearer token not live' })
  const { token, app } = found
  if (!app) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'bearer token of a deleted app' })
  if (app.isSuspended) throw new ServiceError(E.suspendedApplication)
  return { app, token, lookedUp: found }
}

/** A bearer caller verified (its lookup current, or its call refused by a limit): observed once, however many lookups it took. */
export function bearerCallerVerified(deps: Pick<DomainDeps, 'observe'>, app: AppRecord): void {
  deps.observe?.bearerVerification('ok')
  deps.observe?.callerApp?.(app.id, app.consumerKey)
}
