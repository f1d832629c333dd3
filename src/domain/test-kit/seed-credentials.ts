import { OFFLINE_ACCESS } from '../../protocol/oauth2/scopes.ts'
import { ACCESS_LEVELS, type AccessLevel, type AccessTokenRecord, type AppRecord, type BearerTokenRecord, type OAuth2GrantRecord, type UserRecord } from '../../storage/records.ts'
import type { NewOAuth2Token } from '../../storage/types.ts'
import { changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import { issueOrReuseAccessToken } from '../oauth1/issue-access-token.ts'
import { handOutBearerToken } from '../oauth2/bearer-token.ts'
import { ACCESS_TOKEN_TTL_MS, REFRESH_TOKEN_TTL_MS } from '../oauth2-user/lifetimes.ts'
import { APP_DEFAULTS } from '../registry/apps.ts'
import type { SeedIssue } from './seed-check.ts'
import { nameKey, userIdOf, type SeedPlan } from './seed-plan.ts'
import type { Seed, SeedAccessToken, SeedGrant } from './seed-schema.ts'
import { derivedSeedValue } from './seed-values.ts'

/** What this use case touches. */
export type SeedCredentialsDeps = Pick<DomainDeps, 'stores' | 'clock' | 'newId' | 'runtime' | 'observe'>

const USER_TOKEN_LENGTH = 86

/** An app's access level once seeded: the seed's, else the database's, else the default. */
function appLevelOf(plan: SeedPlan, appName: string): AccessLevel {
  const app = plan.apps.get(nameKey(appName))
  return app?.seed.access_level ?? app?.existing?.accessLevel ?? APP_DEFAULTS.accessLevel
}

/** The access level of a seeded access token: its own, else its app's. */
const levelOf = (plan: SeedPlan, token: SeedAccessToken): AccessLevel => token.access_level ?? appLevelOf(plan, token.app)

/** A grant's token values: the seed's, else derived (the database keeps only their hashes). */
export function grantValues(deps: Pick<DomainDeps, 'runtime'>, grant: SeedGrant): { access: string; refresh: string | undefined } {
  const label = `oauth2 ${nameKey(grant.app)} ${nameKey(grant.person)}`
  const refreshable = grant.scopes.includes(OFFLINE_ACCESS)
  return {
    access: grant.access_token ?? derivedSeedValue(deps, `${label} access`, USER_TOKEN_LENGTH),
    refresh: refreshable ? (grant.refresh_token ?? derivedSeedValue(deps, `${label} refresh`, USER_TOKEN_LENGTH)) : undefined,
  }
}

/** Every fixed credential value the database gives to someone else already. */
export async function credentialConflicts(deps: SeedCredentialsDeps, seed: Seed, plan: SeedPlan): Promise<SeedIssue[]> {
  const { access_tokens: tokens = [], bearer_tokens: bearers = [], oauth2_grants: grants = [] } = seed.credentials ?? {}
  const issues: SeedIssue[] = []
  for (const [i, token] of tokens.entries()) issues.push(...(await accessTokenConflicts(deps, plan, token, `credentials.access_tokens[${i}]`)))
  for (const [i, bearer] of bearers.entries()) {
    const appId = plan.apps.get(nameKey(bearer.app))?.existing?.id
    const live = appId === undefined ? undefined : await deps.stores.bearerTokens.findLive(appId)
    const holder = bearer.token === undefined ? undefined : await deps.stores.bearerTokens.findByToken(bearer.token)
    const isOther = holder !== undefined && holder.token !== live?.token
    if (bearer.token !== undefined && ((live && live.token !== bearer.token) || isOther)) issues.push({ path: `credentials.bearer_tokens[${i}].token`, reason: 'another bearer token has this value, or the app already holds another' })
  }
  for (const [i, grant] of grants.entries()) issues.push(...(await grantConflicts(deps, plan, grant, `credentials.oauth2_grants[${i}]`)))
  return issues
}

/** A grant's tokens held by another grant, or its grant made before with other scopes or another refresh token. */
async function grantConflicts(deps: SeedCredentialsDeps, plan: SeedPlan, grant: SeedGrant, at: string): Promise<SeedIssue[]> {
  const appId = plan.apps.get(nameKey(grant.app))?.existing?.id
  const userId = userIdOf(plan, grant.person)
  const values = grantValues(deps, grant)
  const access = await deps.stores.oauth2Grants.findToken(values.access)
  const refresh = values.refresh === undefined ? undefined : await deps.stores.oauth2Grants.findToken(values.refresh)
  const isTheirs = (found: typeof access) => found === undefined || (found.grant.appId === appId && found.grant.userId === userId)
  const issues: SeedIssue[] = []
  if (!isTheirs(access)) issues.push({ path: `${at}.access_token`, reason: 'another grant has this token' })
  else if (access && access.grant.scopes.join(' ') !== grant.scopes.join(' ')) issues.push({ path: `${at}.scopes`, reason: `the grant exists with the scopes ${access.grant.scopes.join(' ')}` })
  const isOtherRefresh = values.refresh !== undefined && (access !== undefined || refresh !== undefined) && refresh?.grant.id !== access?.grant.id
  if (!isTheirs(refresh) || isOtherRefresh) issues.push({ path: `${at}.refresh_token`, reason: 'another grant has this token, or the grant exists with another' })
  return issues
}

async function accessTokenConflicts(deps: SeedCredentialsDeps, plan: SeedPlan, token: SeedAccessToken, at: string): Promise<SeedIssue[]> {
  const userId = userIdOf(plan, token.person)
  const appId = plan.apps.get(nameKey(token.app))?.existing?.id
  const issues: SeedIssue[] = []
  if (token.token !== undefined && !token.token.startsWith(`${userId ?? ''}-`)) {
    const reason = userId === undefined ? `begins with a user id: give @${token.person} a user_id` : `must begin with ${userId}-, the user id of @${token.person}`
    issues.push({ path: `${at}.token`, reason })
  }
  // As on X, a token may have less than its app's level (x_auth_access_type), never more.
  const appLevel = appLevelOf(plan, token.app)
  if (ACCESS_LEVELS.indexOf(levelOf(plan, token)) > ACCESS_LEVELS.indexOf(appLevel)) issues.push({ path: `${at}.access_level`, reason: `is above ${token.app}'s access level, ${appLevel}` })
  const live = appId === undefined || userId === undefined ? undefined : await deps.stores.accessTokens.findLive(appId, userId, levelOf(plan, token))
  const holder = token.token === undefined ? undefined : await deps.stores.accessTokens.findByToken(token.token)
  if ((live && token.token !== undefined && live.token !== token.token) || (holder && holder.token !== live?.token)) {
    issues.push({ path: `${at}.token`, reason: `another access token has this value, or @${token.person} already holds another for ${token.app}` })
  }
  if (live && token.secret !== undefined && live.secret !== token.secret) issues.push({ path: `${at}.secret`, reason: `@${token.person} already holds a token for ${token.app} with another secret` })
  return issues
}

/** The person's live access token for the app at the level, made with the seed's values when there is none. */
export async function seedAccessToken(deps: SeedCredentialsDeps, token: SeedAccessToken, app: AppRecord, user: UserRecord, level: AccessLevel): Promise<AccessTokenRecord> {
  const live = await deps.stores.accessTokens.findLive(app.id, user.id, level)
  if (live) return live
  return issueOrReuseAccessToken(deps, { appId: app.id, userId: user.id, accessLevel: level }, { via: 'seed', values: { token: token.token, secret: token.secret } })
}

/** The app's live bearer token, made with the seed's value when there is none. */
export async function seedBearerToken(deps: SeedCredentialsDeps, app: AppRecord, value: string | undefined): Promise<BearerTokenRecord> {
  return (await deps.stores.bearerTokens.findLive(app.id)) ?? handOutBearerToken(deps, app.id, null, { value })
}

/** A grant of the person to the app with its tokens, made as a redeemed code would make it (token.ts), unless it exists. */
export async function seedGrant(deps: SeedCredentialsDeps, grant: SeedGrant, app: AppRecord, user: UserRecord): Promise<{ access: string; refresh: string | undefined; expiresAtMs: number }> {
  const values = grantValues(deps, grant)
  const found = await deps.stores.oauth2Grants.findToken(values.access)
  if (found) return { ...values, expiresAtMs: found.token.expiresAtMs }
  const nowMs = deps.clock.nowMs()
  const record: OAuth2GrantRecord = { id: deps.newId(), appId: app.id, userId: user.id, scopes: grant.scopes, createdAtMs: nowMs, revokedAtMs: null }
  const tokenOf = (token: string, kind: 'access' | 'refresh', ttlMs: number): NewOAuth2Token => ({ token, record: { kind, grantId: record.id, createdAtMs: nowMs, expiresAtMs: nowMs + ttlMs, spentAtMs: null } })
  const tokens = [tokenOf(values.access, 'access', ACCESS_TOKEN_TTL_MS), ...(values.refresh ? [tokenOf(values.refresh, 'refresh', REFRESH_TOKEN_TTL_MS)] : [])]
  await changeWithAudit(deps, async (tx, audit) => {
    await tx.oauth2Grants.create(record, tokens, undefined)
    await audit({ event: 'oauth2_token.issued', appId: app.id, userId: user.id, detail: { scopes: record.scopes, refreshable: values.refresh !== undefined, via: 'seed' } })
  })
  return { ...values, expiresAtMs: nowMs + ACCESS_TOKEN_TTL_MS }
}
