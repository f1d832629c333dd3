// Login delegation (docs/accounts.md): the browser leaves for the platform's own login page with a
// one-time `login_challenge`; the platform answers it through the admin API
// (src/admin/routes/login-challenges.ts); the browser comes back and is signed in as after a password.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { DomainDeps } from '../domain/deps.ts'
import { findClient } from '../domain/oauth2-user/clients.ts'
import type { SignInThrottle } from '../domain/sign-in.ts'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { DELEGATED_LOGIN_PROVIDER } from '../storage/account-types.ts'
import { addressKey, spendPageLimit } from './console/context.ts'
import { beginExternalSignIn, finishExternalSignIn, safeReturnTo, takeExternalSignIn } from './external-sign-in.ts'
import { queryValue } from './input.ts'
import { isLoginVerifier } from '../domain/accounts/login-challenge.ts'
import { sendRedirect } from './reply.ts'
import type { DelegationSettings } from './sign-in-methods.ts'

export const DELEGATED_START_PATH = '/login/delegated'
export const DELEGATED_RETURN_PATH = '/login/delegated/return'

const SCREEN_NAME = /^[A-Za-z0-9_]{1,15}$/

/** What the consent page the sign-in started on says: its app, its `screen_name` (the login hint), its `force_login`. */
async function consentPageOf(domain: DomainDeps, returnTo: string): Promise<{ appId?: string; loginHint?: string; forceLogin: boolean }> {
  // Read from the page it may come back to (safeReturnTo: one of ours), but force_login, which that drops.
  const url = new URL(safeReturnTo(returnTo), 'http://pages.invalid')
  const query = url.searchParams
  const screenName = query.get('screen_name') ?? ''
  const forceLogin = /^(true|1)$/i.test(new URLSearchParams(returnTo.split('?')[1] ?? '').get('force_login') ?? '')
  const loginHint = SCREEN_NAME.test(screenName) ? screenName : undefined
  return { appId: await appIdOf(domain, url), ...(loginHint ? { loginHint } : {}), forceLogin }
}

/** The app a consent page is for (OAuth 1.0a's request token, OAuth 2.0's client_id); undefined for any other page. */
async function appIdOf(domain: DomainDeps, url: URL): Promise<string | undefined> {
  const token = url.searchParams.get('oauth_token')
  if (/^\/oauth\/(authorize|authenticate)$/.test(url.pathname) && token && token.length <= 200) {
    return (await domain.stores.requestTokens.findByToken(token))?.appId
  }
  const clientId = url.searchParams.get('client_id')
  if (url.pathname === '/i/oauth2/authorize' && clientId) return (await findClient(domain, clientId))?.appId
  return undefined
}

export function delegatedLoginRoutes(deps: { domain: DomainDeps; throttle: SignInThrottle; delegation: DelegationSettings; pageLimit: DomainDeps['limiters']['service']['consolePages'] }) {
  const { domain, delegation } = deps

  async function start(request: FastifyRequest, reply: FastifyReply) {
    const returnTo = (queryValue(request, 'return_to') ?? '').slice(0, 4100)
    const page = await consentPageOf(domain, returnTo)
    const challenge = await beginExternalSignIn(domain, request, reply, {
      kind: 'delegation',
      provider: DELEGATED_LOGIN_PROVIDER,
      returnTo,
      lifetimeSeconds: delegation.challengeSeconds,
      ...page,
    })
    const target = new URL(delegation.loginUrl)
    target.searchParams.set('login_challenge', challenge)
    return sendRedirect(reply, target.toString())
  }

  async function comeBack(request: FastifyRequest, reply: FastifyReply) {
    const record = await takeExternalSignIn(domain, request, queryValue(request, 'login_challenge'), 'delegation')
    const outcome = record.outcome
    if (!outcome) throw new ServiceError(E.delegatedSignInUnanswered)
    if ('rejected' in outcome) {
      const why = outcome.rejected.description ?? outcome.rejected.error
      throw new ServiceError(E.delegatedSignInRejected, { message: `${E.delegatedSignInRejected.message} The login page said: ${why}`, detail: outcome.rejected.error })
    }
    // Only the browser the platform sent back holds the verifier; the challenge alone signs no one in.
    if (!isLoginVerifier(outcome.verifierSha256, queryValue(request, 'login_verifier'))) throw new ServiceError(E.externalSignInUnknown)
    const { subject, screenName, name, email, remember } = outcome.accepted
    const identity = { provider: DELEGATED_LOGIN_PROVIDER, subject, screenNameClaim: screenName, name, email, isEmailVerified: true }
    return finishExternalSignIn(deps, request, reply, { record, identity, policy: delegation.policy, remember })
  }

  return async (app: FastifyInstance) => {
    // Page requests: each counts against its address like the console's.
    app.addHook('onRequest', async (request) => spendPageLimit(deps.pageLimit, addressKey(request)))
    app.get(DELEGATED_START_PATH, { exposeHeadRoute: false }, start)
    app.get(DELEGATED_RETURN_PATH, { exposeHeadRoute: false }, comeBack)
  }
}
