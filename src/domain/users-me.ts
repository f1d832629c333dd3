// GET /2/users/me takes the credentials of both protocols, as X does: this module, like
// identify-caller.ts, sits above the protocol folders.
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { parseBearerHeader } from '../protocol/oauth2/bearer-token.ts'
import type { UserRecord } from '../storage/records.ts'
import type { DomainDeps } from './deps.ts'
import { verifySignedRequest } from './oauth1/verify-signed-request.ts'
import { verifyUserBearer } from './oauth2-user/user-token.ts'
import type { RateLimitedResource } from './rate-limit-table.ts'
import { admitCall, type Limited } from './rate-limits.ts'
import type { RequestInput } from './request.ts'

/** What this use case touches. */
export type UsersMeDeps = Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'observe'>

/** The limit /2/users/me counts against, whichever credential it is called with. */
export const USERS_ME_LIMIT = '/2/users/me' satisfies RateLimitedResource

/**
 * The person a call to /2/users/me acts for: an OAuth 2.0 user access token's (`Bearer`), or an
 * OAuth 1.0a access token's, charged to the app and that person.
 */
export async function currentUser(deps: UsersMeDeps, input: RequestInput): Promise<Limited<{ user: UserRecord }>> {
  if (parseBearerHeader(input.authorization) !== undefined) {
    const holder = await verifyUserBearer(deps, input.authorization)
    const { limit } = await admitCall(deps, USERS_ME_LIMIT, { appId: holder.app.id, userId: holder.user.id }, { input })
    return { user: holder.user, limit }
  }
  const { user, limit } = await verifySignedRequest(deps, input, { tokenKind: 'access', charge: USERS_ME_LIMIT }).catch(asV2Refusal)
  return { user, limit }
}

/**
 * An OAuth 1.0a refusal as API v2 gives it: a header that cannot be read (v1.1's 400 code 215) is,
 * like any other failed authentication there, X's v2 401; limits and outages keep their status.
 */
function asV2Refusal(error: unknown): never {
  if (error instanceof ServiceError && error.status === 400) throw new ServiceError(E.v2Unauthorized, { detail: error.detail ?? error.publicMessage })
  throw error
}
