import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { AccessTokenRecord, AppRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import type { RequestInput } from '../request.ts'
import { verifySignedRequest } from './verify-signed-request.ts'

/**
 * Who is calling a user-context API route: the app, the person and the level of their token. An
 * app-only bearer token cannot act for a person (403 code 220). A token whose owner no longer
 * exists is refused by the verifier itself (401 code 89), which finds the owner with the token.
 */
export async function verifyUserContext(
  deps: DomainDeps,
  input: RequestInput,
): Promise<{ app: AppRecord; user: UserRecord; accessToken: AccessTokenRecord }> {
  if (/^bearer\s/i.test(input.authorization ?? '')) throw new ServiceError(E.credentialsDoNotAllowResource)
  const { app, token, user } = await verifySignedRequest(deps, input, { tokenKind: 'access' })
  return { app, user, accessToken: token }
}
