import { canonicalBearerToken } from '../../protocol/oauth2/bearer-token.ts'
import type { DomainDeps } from '../deps.ts'
import type { RequestInput } from '../request.ts'
import { bodyParams, param } from '../request.ts'
import { authenticateClient, readClientCredentials } from './client-credentials.ts'

export type IntrospectionAnswer =
  | { active: false }
  | {
      active: true
      token_type: 'bearer' | 'access_token'
      client_id: string
      app_id: string
      scope: string
      user_id?: string
      username?: string
    }

/**
 * POST /oauth2/introspect after RFC 7662: a resource server (an app registered with
 * --resource-server, authenticating with HTTP Basic) asks whether a bearer or access token is live.
 * Anything not live — unknown, invalidated, of a suspended or deleted app — is `{"active": false}`.
 */
export async function introspectToken(deps: DomainDeps, input: RequestInput): Promise<IntrospectionAnswer> {
  await authenticateClient(deps, readClientCredentials(input.authorization, []), { requireResourceServer: true, rateLimit: input.rateLimit })
  const value = param(bodyParams(input), 'token')
  if (!value) return { active: false }
  const accessToken = await deps.stores.accessTokens.findByToken(value)
  if (accessToken && accessToken.revokedAtMs === null) {
    const [app, user] = await Promise.all([deps.stores.apps.findById(accessToken.appId), deps.stores.users.findById(accessToken.userId)])
    if (!app || app.isSuspended || !user) return { active: false }
    return {
      active: true,
      token_type: 'access_token',
      client_id: app.consumerKey,
      app_id: app.id,
      scope: accessToken.accessLevel,
      user_id: user.id,
      username: user.screenName,
    }
  }
  const bearer = await deps.stores.bearerTokens.findByToken(canonicalBearerToken(value))
  if (!bearer || bearer.revokedAtMs !== null) return { active: false }
  const app = await deps.stores.apps.findById(bearer.appId)
  if (!app || app.isSuspended) return { active: false }
  return { active: true, token_type: 'bearer', client_id: app.consumerKey, app_id: app.id, scope: app.accessLevel }
}
