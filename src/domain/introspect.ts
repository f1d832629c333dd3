// Introspection describes the tokens of every protocol Latchkey serves (OAuth 1.0a access tokens,
// app-only bearer tokens, OAuth 2.0 user access tokens), so it sits above the protocol folders.
import { canonicalBearerToken } from '../protocol/oauth2/bearer-token.ts'
import { scopeString } from '../protocol/oauth2/scopes.ts'
import type { DomainDeps } from './deps.ts'
import type { RequestInput } from './request.ts'
import { bodyParams, param } from './request.ts'
import { afterCharge, admitCall, type Limited } from './rate-limits.ts'
import { authenticateAppClient, readClientCredentials } from './oauth2/client-credentials.ts'
import { findUserTokenHolder } from './oauth2-user/user-token.ts'
import type { RateLimitedResource } from './rate-limit-table.ts'

/** What this use case touches. */
export type IntrospectDeps = Pick<DomainDeps, 'stores' | 'clock' | 'limiters' | 'observe'>

/** The limit every call counts against (the route's address limit too: src/web/plugins/rate-limit.ts). */
export const INTROSPECT_LIMIT = '/oauth2/introspect' satisfies RateLimitedResource

/**
 * The `token_type_hint` that asks about an OAuth 1.0a access token, and the `token_type` such an
 * answer carries: Latchkey's own, so that no resource server that accepts bearer tokens takes it
 * for one (RFC 7662 §2.1 leaves hints beyond RFC 7009's open; `access_token` is not a token type).
 */
export const OAUTH1_ACCESS_TOKEN_HINT = 'oauth1_access_token'
export const OAUTH1_ACCESS_TOKEN_TYPE = 'urn:latchkey:token-type:oauth1-access-token'

export type IntrospectionAnswer =
  | { active: false }
  | {
      active: true
      token_type: 'bearer' | typeof OAUTH1_ACCESS_TOKEN_TYPE
      client_id: string
      app_id: string
      scope: string
      user_id?: string
      username?: string
      /** When an OAuth 2.0 user access token stops working, in seconds since the epoch. */
      exp?: number
    }

/**
 * POST /oauth2/introspect after RFC 7662: a resource server (an app registered with
 * --resource-server, authenticating with HTTP Basic) asks whether a token is live. A token is
 * `active` only when it is itself a bearer credential. The public half of an OAuth 1.0a access
 * token travels in every signed request and proves nothing without its secret, so it is described
 * only when the caller asks for that kind (`token_type_hint=oauth1_access_token`); to check a signed
 * request, a resource server uses the exported verifier. Anything not live — unknown, invalidated,
 * of a suspended or deleted app, of a disabled person — is `{"active": false}`. An OAuth 2.0 user
 * access token is a bearer credential: active while it lives, with its grant's scopes, its person
 * and `exp`; expired, refreshed away or revoked, it is not.
 */
export async function introspectToken(deps: IntrospectDeps, input: RequestInput): Promise<Limited<{ answer: IntrospectionAnswer }>> {
  const server = await authenticateAppClient(deps, readClientCredentials(input.authorization, []), { requireResourceServer: true })
  const { limit } = await admitCall(deps, INTROSPECT_LIMIT, { appId: server.id }, { input })
  return afterCharge(limit, async () => ({ answer: await lookUp(deps, input) }))
}

async function lookUp(deps: IntrospectDeps, input: RequestInput): Promise<IntrospectionAnswer> {
  const params = bodyParams(input)
  const value = param(params, 'token')
  if (!value) return { active: false }
  return param(params, 'token_type_hint') === OAUTH1_ACCESS_TOKEN_HINT ? describeAccessToken(deps, value) : describeBearerToken(deps, value)
}

async function describeAccessToken(deps: IntrospectDeps, value: string): Promise<IntrospectionAnswer> {
  const accessToken = await deps.stores.accessTokens.findByToken(value)
  if (!accessToken || accessToken.revokedAtMs !== null) return { active: false }
  const [app, user] = await Promise.all([deps.stores.apps.findById(accessToken.appId), deps.stores.users.findById(accessToken.userId)])
  if (!app || app.isSuspended || !user || user.isDisabled) return { active: false }
  return {
    active: true,
    token_type: OAUTH1_ACCESS_TOKEN_TYPE,
    client_id: app.consumerKey,
    app_id: app.id,
    scope: accessToken.accessLevel,
    user_id: user.id,
    username: user.screenName,
  }
}

async function describeBearerToken(deps: IntrospectDeps, value: string): Promise<IntrospectionAnswer> {
  const holder = await findUserTokenHolder(deps, value)
  if (holder) {
    const client = await deps.stores.oauth2Clients.findByAppId(holder.app.id)
    if (!client) return { active: false }
    return {
      active: true,
      token_type: 'bearer',
      client_id: client.clientId,
      app_id: holder.app.id,
      scope: scopeString(holder.scopes),
      user_id: holder.user.id,
      username: holder.user.screenName,
      exp: Math.floor(holder.expiresAtMs / 1000),
    }
  }
  const bearer = await deps.stores.bearerTokens.findByToken(canonicalBearerToken(value))
  if (!bearer || bearer.revokedAtMs !== null) return { active: false }
  const app = await deps.stores.apps.findById(bearer.appId)
  if (!app || app.isSuspended) return { active: false }
  return { active: true, token_type: 'bearer', client_id: app.consumerKey, app_id: app.id, scope: app.accessLevel }
}
