import { E } from '../../errors/catalogue.ts'
import { assertThat } from '../../errors/service-error.ts'
import { newBearerTokenValue } from '../../protocol/secrets.ts'
import type { BearerTokenRecord } from '../../storage/records.ts'
import { changeWithAudit, recordAudit, type AuditEntry } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import type { RequestInput } from '../request.ts'
import { afterCharge, admitCall, type Limited } from '../rate-limits.ts'
import { bodyParams, formParams, param } from '../request.ts'
import { authenticateAppClient, readClientCredentials } from './client-credentials.ts'
import type { HandOutTally } from './hand-out-tally.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'

/** What this use case touches. */
export type BearerTokenDeps = Pick<DomainDeps, 'stores' | 'clock' | 'limiters' | 'observe' | 'handOuts'>

/** The limit every call counts against (the route's address limit too: src/web/plugins/rate-limit.ts). */
export const BEARER_TOKEN_LIMIT = '/oauth2/token' satisfies RateLimitedResource

/**
 * service-spec §4.6, POST /oauth2/token: client credentials for the app's one bearer token, the
 * same until it is invalidated, also when many first calls arrive at once. Calls past the pace
 * rule get 403 code 99; only authenticated calls count, so a stranger cannot use up an app's pace.
 */
export async function issueOrReuseBearerToken(deps: BearerTokenDeps, input: RequestInput): Promise<Limited<{ bearerToken: BearerTokenRecord }>> {
  const params = formParams(input)
  const grantType = param(params, 'grant_type')
  assertThat(grantType !== undefined && grantType !== '', E.missingGrantType)
  assertThat(grantType === 'client_credentials', E.unableToVerifyCredentials, { detail: 'unsupported grant_type' })
  const app = await authenticateAppClient(deps, readClientCredentials(input.authorization, bodyParams(input)))
  // The pace rule (its row in rate-limit-table.ts): past it, 403 code 99 as Twitter answers, not 429.
  const { limit } = await admitCall(deps, BEARER_TOKEN_LIMIT, { appId: app.id }, { input })
  return afterCharge(limit, async () => ({ bearerToken: await handOutBearerToken(deps, app.id, input.clientAddress ?? null, { tally: deps.handOuts }) }))
}

/**
 * The app's one live bearer token, made on first need; for POST /oauth2/token and the developer
 * console alike. Every hand-out is recorded, the repeats too: each gives the app's credential away.
 * With `tally` (POST /oauth2/token, where nearly every call is a repeat), repeats are counted into
 * one row per app per minute (hand-out-tally.ts) and write nothing themselves; the console's and a
 * seed's hand-outs each get their row.
 */
export async function handOutBearerToken(
  deps: Pick<DomainDeps, 'stores' | 'clock' | 'observe'>,
  appId: string,
  address: string | null,
  /** `value`: a new token's value when one is made (a seed file's fixed one); random otherwise. */
  options: { value?: string | undefined; tally?: HandOutTally | undefined } = {},
): Promise<BearerTokenRecord> {
  const handOut = (reused: boolean): AuditEntry => ({ event: 'bearer_token.issued', appId, address, detail: { reused } })
  const live = await deps.stores.bearerTokens.findLive(appId)
  if (live) {
    if (options.tally) options.tally.count(appId, address)
    else await recordAudit(deps, handOut(true))
    deps.observe?.tokenIssued('bearer_token')
    return live
  }
  // The first hand-out: the new token and its audit row in one transaction.
  const issued = await changeWithAudit(deps, async (tx, audit) => {
    const candidate: BearerTokenRecord = { token: options.value ?? newBearerTokenValue(), appId, createdAtMs: deps.clock.nowMs(), revokedAtMs: null }
    // Another call may have issued one since findLive: then that one is handed out.
    const token = await tx.bearerTokens.issueOrReuse(candidate)
    await audit(handOut(token.token !== candidate.token))
    return token
  })
  deps.observe?.tokenIssued('bearer_token')
  return issued
}
