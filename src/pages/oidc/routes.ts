// GET /login/oidc/:provider and its callback (docs/accounts.md): a person signs in at an upstream
// OpenID Connect provider and comes back signed in here, as after a password.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { randomNonce, randomPKCECodeVerifier } from 'openid-client'
import type { DomainDeps } from '../../domain/deps.ts'
import type { SignInThrottle } from '../../domain/sign-in.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { publicOrigin } from '../../web/request-url.ts'
import { beginExternalSignIn, finishExternalSignIn, takeExternalSignIn } from '../external-sign-in.ts'
import { sendRedirect } from '../reply.ts'
import { ProviderClient, UpstreamSignInFailed, UpstreamUnavailable, type OidcProvider } from './provider-client.ts'

/** How long a browser may spend at the provider before its return is refused as expired. */
export const OIDC_SIGN_IN_SECONDS = 600

export interface OidcRoutesDeps {
  domain: DomainDeps
  throttle: SignInThrottle
  providers: readonly OidcProvider[]
  publicUrl: URL | undefined
}

interface StartQuery {
  return_to?: string
  /** The sudo page's re-authentication (src/pages/console/sudo.ts). */
  force_login?: string
}

/** A page of this service named by `return_to`; the front page for one the URL parser refuses (`//`, `\\`). */
function pageUrl(returnTo: string | undefined): URL {
  try {
    return new URL(returnTo ?? '/', 'http://pages.invalid')
  } catch {
    return new URL('/', 'http://pages.invalid')
  }
}

/**
 * What the page the sign-in started from asks of the provider: `force_login` (the consent page's,
 * or the sudo page's) makes it authenticate afresh; an OAuth 1.0a consent page's `screen_name` is
 * its `login_hint`.
 */
function requestedOf(query: StartQuery): { forceLogin: boolean; loginHint: string | undefined } {
  const returnTo = pageUrl(query.return_to)
  const isTrue = (value: string | null | undefined) => value === 'true' || value === '1'
  const hint = returnTo.pathname.startsWith('/oauth/') ? returnTo.searchParams.get('screen_name') : null
  return {
    forceLogin: isTrue(returnTo.searchParams.get('force_login')) || isTrue(query.force_login),
    loginHint: hint && /^[A-Za-z0-9_]{1,15}$/.test(hint) ? hint : undefined,
  }
}

/** The app whose consent page the sign-in started from, for the audit's `app_id`; undefined for the console. */
async function appIdOf(domain: DomainDeps, returnTo: string | undefined): Promise<string | undefined> {
  const url = pageUrl(returnTo)
  const token = url.searchParams.get('oauth_token')?.slice(0, 200)
  if (url.pathname.startsWith('/oauth/') && token) return (await domain.stores.requestTokens.findByToken(token))?.appId
  const clientId = url.searchParams.get('client_id')
  if (url.pathname === '/i/oauth2/authorize' && clientId) return (await domain.stores.oauth2Clients.findByClientId(clientId))?.appId
  return undefined
}

/** A query parameter given once; a repeated one (an array) counts as none. */
const single = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

export function oidcRoutes(deps: OidcRoutesDeps) {
  const clients = new Map(deps.providers.map((provider) => [provider.id, new ProviderClient(provider)]))

  function clientOf(id: string): ProviderClient {
    const client = clients.get(id)
    if (!client) throw new ServiceError(E.oidcProviderUnknown)
    return client
  }

  function redirectUri(request: FastifyRequest, id: string): string {
    const origin = publicOrigin(request, deps.publicUrl)
    return `${origin.scheme}://${origin.host}/login/oidc/${id}/callback`
  }

  /** The provider could not be reached: a page saying so, the reason for the log only. */
  async function orUnavailable<T>(client: ProviderClient, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      if (error instanceof UpstreamUnavailable) throw new ServiceError(E.oidcProviderUnavailable, { detail: `${client.provider.id}: ${error.message}` })
      throw error
    }
  }

  async function start(request: FastifyRequest<{ Params: { provider: string }; Querystring: StartQuery }>, reply: FastifyReply) {
    const client = clientOf(request.params.provider)
    const requested = requestedOf(request.query)
    const secrets = { codeVerifier: randomPKCECodeVerifier(), nonce: randomNonce() }
    const state = await beginExternalSignIn(deps.domain, request, reply, {
      kind: 'oidc',
      provider: client.provider.id,
      returnTo: request.query.return_to ?? '/console',
      lifetimeSeconds: OIDC_SIGN_IN_SECONDS,
      appId: await appIdOf(deps.domain, request.query.return_to),
      ...requested,
      secrets,
    })
    const url = await orUnavailable(client, () => client.authorizationUrl({ state, ...secrets, ...requested, redirectUri: redirectUri(request, client.provider.id) }))
    return sendRedirect(reply, url.href)
  }

  async function callback(request: FastifyRequest<{ Params: { provider: string }; Querystring: Record<string, unknown> }>, reply: FastifyReply) {
    const client = clientOf(request.params.provider)
    const record = await takeExternalSignIn(deps.domain, request, single(request.query.state), 'oidc')
    // A state started for another provider is worth nothing here.
    if (record.provider !== client.provider.id || !record.secrets) throw new ServiceError(E.externalSignInUnknown)
    const failed = (detail: string) =>
      new ServiceError(E.oidcSignInFailed, { message: `The sign-in at ${client.provider.displayName} did not succeed. Go back and try again.`, detail: `${client.provider.id}: ${detail}` })
    if (request.query.error !== undefined) throw failed(`the provider answered error=${String(single(request.query.error)).slice(0, 60)}`)
    const callbackUrl = new URL(request.url, redirectUri(request, client.provider.id))
    const checks = { state: record.id, ...record.secrets, forceLogin: record.forceLogin }
    const identity = await orUnavailable(client, () => client.identityOf(callbackUrl, checks)).catch((error: unknown) => {
      throw error instanceof UpstreamSignInFailed ? failed(error.message) : error
    })
    if (!identity.subject) throw failed('the ID token has no subject')
    return finishExternalSignIn(deps, request, reply, { record, identity, policy: client.provider.link, remember: true })
  }

  return async (app: FastifyInstance) => {
    const params = { type: 'object', properties: { provider: { type: 'string', maxLength: 40 } } }
    app.get('/login/oidc/:provider', { schema: { params } }, start)
    app.get('/login/oidc/:provider/callback', { schema: { params } }, callback)
  }
}
