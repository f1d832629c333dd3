import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { parseBearerHeader } from '../../protocol/oauth2/bearer-token.ts'
import type { AccessTokenRecord, AppRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import type { Limited } from '../rate-limits.ts'
import type { RequestInput } from '../request.ts'
import { verifySignedRequest } from './verify-signed-request.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'

/** What this use case touches. */
export type VerifyUserContextDeps = Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'observe'>

/** The limit every call counts against (the route's address limit too: src/web/plugins/rate-limit.ts). */
export const VERIFY_CREDENTIALS_LIMIT = '/account/verify_credentials' satisfies RateLimitedResource

/**
 * Who is calling a user-context API route: the app, the person and the level of their token. An
 * app-only bearer token cannot act for a person (403 code 220). A token whose owner no longer
 * exists is refused by the verifier itself (401 code 89), which finds the owner with the token.
 */
export async function verifyUserContext(
  deps: VerifyUserContextDeps,
  input: RequestInput,
): Promise<Limited<{ app: AppRecord; user: UserRecord; accessToken: AccessTokenRecord }>> {
  if (parseBearerHeader(input.authorization) !== undefined) throw new ServiceError(E.credentialsDoNotAllowResource)
  const { app, token, user, limit } = await verifySignedRequest(deps, input, { tokenKind: 'access', charge: VERIFY_CREDENTIALS_LIMIT })
  return { app, user, accessToken: token, limit }
}
