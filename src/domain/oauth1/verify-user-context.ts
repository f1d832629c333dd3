import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { AccessTokenRecord, AppRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import type { SignedRequestInput } from './signed-request.ts'
import { verifySignedRequest } from './verify-request.ts'

/**
 * Who is calling a user-context API route: the app, the person and the level of their token. An
 * app-only bearer token cannot act for a person (403 code 220).
 */
export async function verifyUserContext(
  deps: DomainDeps,
  input: SignedRequestInput,
): Promise<{ app: AppRecord; user: UserRecord; accessToken: AccessTokenRecord }> {
  if (/^bearer\s/i.test(input.authorization ?? '')) throw new ServiceError(E.credentialsDoNotAllowResource)
  const { app, token } = await verifySignedRequest(deps, input, { tokenKind: 'access' })
  return { app, user: await tokenOwner(deps, token), accessToken: token }
}

/** The person an access token acts for; 401 code 89 when they no longer exist. */
export async function tokenOwner(deps: Pick<DomainDeps, 'stores'>, token: AccessTokenRecord): Promise<UserRecord> {
  const user = await deps.stores.users.findById(token.userId)
  if (!user) throw new ServiceError(E.invalidOrExpiredToken, { detail: 'the token owner no longer exists' })
  return user
}
