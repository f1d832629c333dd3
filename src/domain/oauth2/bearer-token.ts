import { E } from '../../errors/catalogue.ts'
import { assertThat } from '../../errors/service-error.ts'
import { newBearerTokenValue } from '../../protocol/secrets.ts'
import type { BearerTokenRecord } from '../../storage/records.ts'
import { recordAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import type { SignedRequestInput } from '../oauth1/signed-request.ts'
import { countCall, limitSubject } from '../rate-limits.ts'
import { formParams, param } from '../request-params.ts'
import { authenticateClient, readClientCredentials } from './client-credentials.ts'

/**
 * service-spec §4.6, POST /oauth2/token: client credentials for the app's one bearer token, the
 * same until it is invalidated, also when many first calls arrive at once. Calls past the pace
 * rule get 403 code 99; only authenticated calls count, so a stranger cannot use up an app's pace.
 */
export async function issueOrReuseBearerToken(deps: DomainDeps, input: SignedRequestInput): Promise<BearerTokenRecord> {
  const params = formParams(input)
  const grantType = param(params, 'grant_type')
  assertThat(grantType !== undefined && grantType !== '', E.missingGrantType)
  assertThat(grantType === 'client_credentials', E.unableToVerifyCredentials, { detail: 'unsupported grant_type' })
  const app = await authenticateClient(deps, readClientCredentials(input.authorization, params))
  // The pace rule: past it, 403 code 99 as Twitter answers, not 429.
  await countCall(deps, input.rateLimit, limitSubject.app(app.id), E.unableToVerifyCredentials)
  const candidate: BearerTokenRecord = { token: newBearerTokenValue(), appId: app.id, createdAtMs: deps.clock.nowMs(), revokedAtMs: null }
  const issued = await deps.stores.bearerTokens.issueOrReuse(candidate)
  // Every hand-out, the repeats too: each gives the app's credential to whoever holds its secret.
  await recordAudit(deps, {
    event: 'bearer_token.issued',
    appId: app.id,
    address: input.clientAddress,
    detail: { reused: issued.token !== candidate.token },
  })
  return issued
}
