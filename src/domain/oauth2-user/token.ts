import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { verifierMatches } from '../../protocol/oauth2/pkce.ts'
import { OFFLINE_ACCESS, parseScopes, scopeString } from '../../protocol/oauth2/scopes.ts'
import type { AppRecord, AuthorizationCodeRecord, OAuth2ClientRecord, OAuth2GrantRecord } from '../../storage/records.ts'
import type { NewOAuth2Token } from '../../storage/types.ts'
import { changeWithAudit, recordAudit } from '../audit.ts'
import { tokenSha256 } from '../revocations/events.ts'
import type { DomainDeps } from '../deps.ts'
import { afterCharge, admitCall, type Limited } from '../rate-limits.ts'
import { param, type RequestInput } from '../request.ts'
import { authenticateOAuth2Client } from './client-authentication.ts'
import { usableScopes } from './grant-scopes.ts'
import { ACCESS_TOKEN_TTL_MS, REFRESH_TOKEN_TTL_MS } from './lifetimes.ts'
import { tokenRequestParams } from './token-request.ts'
import { newUserTokenValue } from './token-values.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'

/** What this use case touches. */
export type UserTokenDeps = Pick<DomainDeps, 'stores' | 'clock' | 'limiters' | 'observe' | 'newId'>

/** The limit every call counts against (the route's address limit too: src/web/plugins/rate-limit.ts). */
export const USER_TOKEN_LIMIT = '/2/oauth2/token' satisfies RateLimitedResource

/** The answer of POST /2/oauth2/token (twitter-behaviour §9). */
export interface UserTokenAnswer {
  token_type: 'bearer'
  expires_in: number
  access_token: string
  scope: string
  refresh_token?: string
}

interface Caller {
  client: OAuth2ClientRecord
  app: AppRecord
  params: Array<[string, string]>
  address: string | null
}

/**
 * POST /2/oauth2/token, user context: `authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.5) and
 * `refresh_token` (§6, rotated: RFC 9700 §4.14). The client is authenticated and charged first;
 * only then is a code or refresh token spent.
 */
export async function issueUserToken(deps: UserTokenDeps, input: RequestInput): Promise<Limited<{ answer: UserTokenAnswer }>> {
  const params = tokenRequestParams(input)
  const { client, app } = await authenticateOAuth2Client(deps, { authorization: input.authorization, params })
  const { limit } = await admitCall(deps, USER_TOKEN_LIMIT, { appId: app.id }, { input })
  const caller: Caller = { client, app, params, address: input.clientAddress ?? null }
  return afterCharge(limit, async () => {
    const grantType = param(params, 'grant_type')
    assertThat(grantType, E.oauth2InvalidRequest, { message: 'Missing required parameter [grant_type].' })
    if (grantType === 'authorization_code') return { answer: await redeemCode(deps, caller) }
    if (grantType === 'refresh_token') return { answer: await refresh(deps, caller) }
    throw new ServiceError(E.oauth2UnsupportedGrantType, { detail: 'unsupported grant_type' })
  })
}

function newTokens(grant: OAuth2GrantRecord, nowMs: number): { access: NewOAuth2Token; refresh?: NewOAuth2Token } {
  const access: NewOAuth2Token = {
    token: newUserTokenValue(),
    record: { kind: 'access', grantId: grant.id, createdAtMs: nowMs, expiresAtMs: nowMs + ACCESS_TOKEN_TTL_MS, spentAtMs: null },
  }
  if (!grant.scopes.includes(OFFLINE_ACCESS)) return { access }
  const refresh: NewOAuth2Token = {
    token: newUserTokenValue(),
    record: { kind: 'refresh', grantId: grant.id, createdAtMs: nowMs, expiresAtMs: nowMs + REFRESH_TOKEN_TTL_MS, spentAtMs: null },
  }
  return { access, refresh }
}

/** The answer, its `scope` what the tokens may do now: the grant's scopes within the app's current level. */
function answerOf(grant: OAuth2GrantRecord, app: AppRecord, tokens: ReturnType<typeof newTokens>): UserTokenAnswer {
  const scope = scopeString(usableScopes(grant.scopes, app.accessLevel))
  const answer: UserTokenAnswer = { token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL_MS / 1000, access_token: tokens.access.token, scope }
  if (tokens.refresh) answer.refresh_token = tokens.refresh.token
  return answer
}

/**
 * Ends a grant whose code or refresh token was presented again: whoever holds the copy gets nothing.
 * The audit row names the grant's own app and person.
 */
async function endReusedGrant(
  deps: UserTokenDeps,
  caller: Caller,
  grant: Pick<OAuth2GrantRecord, 'id' | 'appId' | 'userId'>,
  reused: { what: 'code' | 'refresh_token'; value: string },
): Promise<void> {
  const nowMs = deps.clock.nowMs()
  // The revocation, its audit row and its revocation event in one unit.
  const ended = await changeWithAudit(deps, async (tx, audit) => {
    if (!(await tx.oauth2Grants.revoke(grant.id, nowMs))) return false
    const detail = { reason: `${reused.what}_reused` }
    await audit({ event: 'oauth2_grant.revoked', appId: grant.appId, userId: grant.userId, address: caller.address, detail, endedTokenSha256: tokenSha256(reused.value) })
    return true
  })
  if (ended) deps.observe?.tokenInvalidated('user_access_token', 'refresh_reuse')
}

/** Whether a code was issued to this client, for this redirect URI and the challenge of this verifier. */
const isBoundTo = (record: AuthorizationCodeRecord, caller: Caller, redirectUri: string, verifier: string): boolean =>
  record.appId === caller.app.id && record.redirectUri === redirectUri && verifierMatches(verifier, record.codeChallenge, record.challengeMethod)

async function redeemCode(deps: UserTokenDeps, caller: Caller): Promise<UserTokenAnswer> {
  const code = param(caller.params, 'code')
  const redirectUri = param(caller.params, 'redirect_uri')
  const verifier = param(caller.params, 'code_verifier')
  assertThat(code && redirectUri && verifier, E.oauth2InvalidRequest, { message: 'Missing required parameter [code, redirect_uri or code_verifier].' })
  const nowMs = deps.clock.nowMs()
  const redemption = await deps.stores.oauth2Codes.redeem(code, nowMs)
  if (redemption.outcome === 'unknown') throw new ServiceError(E.oauth2InvalidRequest, { detail: 'code unknown' })
  const { record } = redemption
  const isBound = isBoundTo(record, caller, redirectUri, verifier)
  if (redemption.outcome === 'reused') {
    // Only the client the code was issued to, presenting it as issued, ends what the first use made:
    // a leaked code under another client id (or without the verifier) ends nobody's grant.
    if (isBound && redemption.grantId !== null) await endReusedGrant(deps, caller, { id: redemption.grantId, appId: record.appId, userId: record.userId }, { what: 'code', value: code })
    throw new ServiceError(E.oauth2InvalidRequest, { detail: 'code reused' })
  }
  assertThat(isBound, E.oauth2InvalidRequest, { detail: 'code not bound to this client, redirect_uri or verifier' })
  assertThat(nowMs < record.expiresAtMs, E.oauth2InvalidRequest, { detail: 'code expired' })
  const user = await deps.stores.users.findById(record.userId)
  assertThat(user && !user.isDisabled, E.oauth2InvalidRequest, { detail: 'the person is disabled or gone' })
  const grant: OAuth2GrantRecord = { id: deps.newId(), appId: caller.app.id, userId: record.userId, scopes: record.scopes, createdAtMs: nowMs, revokedAtMs: null }
  const tokens = newTokens(grant, nowMs)
  await changeWithAudit(deps, async (tx, audit) => {
    await tx.oauth2Grants.create(grant, [tokens.access, ...(tokens.refresh ? [tokens.refresh] : [])], code)
    await audit({ event: 'oauth2_token.issued', appId: caller.app.id, userId: record.userId, address: caller.address, detail: { scopes: grant.scopes, refreshable: tokens.refresh !== undefined } })
  })
  deps.observe?.tokenIssued('user_access_token')
  if (tokens.refresh) deps.observe?.tokenIssued('refresh_token')
  return answerOf(grant, caller.app, tokens)
}

async function refresh(deps: UserTokenDeps, caller: Caller): Promise<UserTokenAnswer> {
  const presented = param(caller.params, 'refresh_token')
  assertThat(presented, E.oauth2InvalidRequest, { message: 'Missing required parameter [refresh_token].' })
  const found = await deps.stores.oauth2Grants.findToken(presented)
  const nowMs = deps.clock.nowMs()
  const isOurs = found !== undefined && found.token.kind === 'refresh' && found.grant.appId === caller.app.id
  if (!isOurs) throw new ServiceError(E.oauth2InvalidToken, { detail: 'refresh token unknown or not this client\'s' })
  const { token, grant } = found
  if (token.spentAtMs !== null) {
    await endReusedGrant(deps, caller, grant, { what: 'refresh_token', value: presented })
    throw new ServiceError(E.oauth2InvalidToken, { detail: 'refresh token reused' })
  }
  assertThat(grant.revokedAtMs === null && nowMs < token.expiresAtMs, E.oauth2InvalidToken, { detail: 'grant revoked or refresh token expired' })
  const asked = param(caller.params, 'scope')
  if (asked !== undefined) {
    const parsed = parseScopes(asked)
    const isWithin = 'scopes' in parsed && parsed.scopes.every((scope) => grant.scopes.includes(scope))
    assertThat(isWithin, E.oauth2InvalidScope, { detail: 'scope beyond the grant' })
  }
  const user = await deps.stores.users.findById(grant.userId)
  assertThat(user && !user.isDisabled, E.oauth2InvalidToken, { detail: 'the person is disabled or gone' })
  const tokens = newTokens(grant, nowMs)
  const rotated = await deps.stores.oauth2Grants.rotate(presented, [tokens.access, ...(tokens.refresh ? [tokens.refresh] : [])], nowMs)
  if (!rotated) {
    // Another request spent it first: one of the two is a copy.
    await endReusedGrant(deps, caller, grant, { what: 'refresh_token', value: presented })
    throw new ServiceError(E.oauth2InvalidToken, { detail: 'refresh token reused' })
  }
  await recordAudit(deps, { event: 'oauth2_token.refreshed', appId: caller.app.id, userId: grant.userId, address: caller.address, detail: { scopes: grant.scopes } })
  deps.observe?.tokenIssued('user_access_token')
  if (tokens.refresh) deps.observe?.tokenIssued('refresh_token')
  return answerOf(grant, caller.app, tokens)
}
