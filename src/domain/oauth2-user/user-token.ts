import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { parseBearerHeader } from '../../protocol/oauth2/bearer-token.ts'
import type { AccessLevel, AppRecord, OAuth2GrantRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import { accessLevelOfScopes, usableScopes } from './grant-scopes.ts'
import { isUserTokenValue } from './token-values.ts'

export interface UserTokenHolder {
  app: AppRecord
  user: UserRecord
  grant: OAuth2GrantRecord
  /** What the token may do now: its grant's scopes within the app's current access level. */
  scopes: string[]
  accessLevel: AccessLevel
  expiresAtMs: number
}

/**
 * Who an OAuth 2.0 user access token acts for: live while unexpired, not replaced by a refresh, its
 * grant not revoked, its app not suspended and its person not disabled. Undefined otherwise (and
 * for anything that is not such a token: the caller decides what that means).
 */
export async function findUserTokenHolder(deps: Pick<DomainDeps, 'stores' | 'clock'>, token: string): Promise<UserTokenHolder | undefined> {
  if (!isUserTokenValue(token)) return undefined
  const found = await deps.stores.oauth2Grants.findToken(token)
  if (!found || found.token.kind !== 'access') return undefined
  const { token: record, grant } = found
  if (record.spentAtMs !== null || grant.revokedAtMs !== null || deps.clock.nowMs() >= record.expiresAtMs) return undefined
  const [app, user] = await Promise.all([deps.stores.apps.findById(grant.appId), deps.stores.users.findById(grant.userId)])
  if (!app || app.isSuspended || !user || user.isDisabled) return undefined
  return { app, user, grant, scopes: usableScopes(grant.scopes, app.accessLevel), accessLevel: accessLevelOfScopes(grant.scopes, app.accessLevel), expiresAtMs: record.expiresAtMs }
}

/**
 * GET /2/users/me with `Authorization: Bearer`: the person of a user access token. An app-only
 * bearer token gets X's 403 "Unsupported Authentication"; anything else X's v2 401.
 */
export async function verifyUserBearer(deps: Pick<DomainDeps, 'stores' | 'clock' | 'observe'>, authorization: string | undefined): Promise<UserTokenHolder> {
  const presented = parseBearerHeader(authorization)
  if (presented === undefined) throw new ServiceError(E.v2Unauthorized, { detail: 'no bearer token' })
  const holder = await findUserTokenHolder(deps, presented)
  if (holder) {
    deps.observe?.callerApp?.(holder.app.id, holder.app.consumerKey)
    return holder
  }
  const appOnly = await deps.stores.credentials.findBearerTokenWithApp(presented)
  if (appOnly && appOnly.token.revokedAtMs === null) throw new ServiceError(E.v2UnsupportedAuthentication)
  throw new ServiceError(E.v2Unauthorized, { detail: 'user access token not live' })
}
