// service-spec §4.2–4.3, twitter-behaviour §2.2: the browser step of OAuth 1.0a.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { DomainDeps } from '../domain/deps.ts'
import type { RateLimitedResource } from '../domain/rate-limit-table.ts'
import {
  approveAuthorization,
  denyAuthorization,
  isAlreadyGranted,
  loadConsent,
  type AuthorizationFlow,
  type Consent,
} from '../domain/oauth1/authorization.ts'
import type { SignInThrottle } from '../domain/sign-in.ts'
import { consentToRequestToken } from '../domain/test-kit/consent.ts'
import type { UserRecord } from '../storage/records.ts'
import { consentForm, type ConsentFlow } from './consent-form.ts'
import { readQuery } from './input.ts'
import { sendPage, sendRedirect } from './reply.ts'
import type { Session } from './session.ts'
import { visitorOf } from './visitor.ts'
import { onlyMethod, PASSWORD_ONLY, startPath, type SignInOptions } from './sign-in-methods.ts'
import { consentPage } from './views/consent.ts'
import { deniedPage, pinPage } from './views/outcome.ts'

export const FLOW_PATHS = {
  authorize: '/oauth/authorize',
  authenticate: '/oauth/authenticate',
} as const satisfies Record<AuthorizationFlow, RateLimitedResource>

interface ShowOptions {
  signedIn: UserRecord | undefined
  usernamePrefill: string
  forceLogin: boolean
  message?: string
}

/** `autoConsent`: test mode's person who approves every request at once (AppDeps' `http.autoConsent`). */
export interface ConsentRouteOptions {
  autoConsent?: string | undefined
  /** How people may sign in on the page; a password only when not given. */
  signIn?: SignInOptions | undefined
}

export function consentRoutes(domain: DomainDeps, throttle: SignInThrottle, options: ConsentRouteOptions = {}) {
  const signIn = options.signIn ?? PASSWORD_ONLY
  function show(reply: FastifyReply, status: number, flow: AuthorizationFlow, consent: Consent, session: Session, options: ShowOptions) {
    const page = consentPage({ action: FLOW_PATHS[flow], consent, csrfToken: session.csrf, signInOptions: signIn, ...options })
    return sendPage(reply, status, page, { kind: 'consent', callback: consent.requestToken.callback })
  }

  async function approve(
    request: FastifyRequest,
    reply: FastifyReply,
    flow: AuthorizationFlow,
    consent: Consent,
    userId: string,
    isAutomatic = false,
  ) {
    const token = consent.requestToken.token
    const result = await approveAuthorization(domain, { token, userId, flow, address: request.ip, isAutomatic })
    if ('pin' in result) return sendPage(reply, 200, pinPage(consent.app.name, result.pin))
    return sendRedirect(reply, result.redirectTo)
  }

  /** Test mode's --auto-consent: "Authorize app" pressed at once by that person, answered as the page answers it. */
  async function autoApprove(request: FastifyRequest, reply: FastifyReply, flow: AuthorizationFlow, consent: Consent, screenName: string) {
    const oauthToken = consent.requestToken.token
    const outcome = await consentToRequestToken(domain, { oauthToken, screenName, decision: 'allow', address: request.ip, flow })
    if ('location' in outcome) return sendRedirect(reply, outcome.location)
    return sendPage(reply, 200, 'pin' in outcome ? pinPage(consent.app.name, outcome.pin) : deniedPage(consent.app.name))
  }

  /** What the form's skeleton (consent-form.ts) needs of this flow. */
  function formOf(flow: AuthorizationFlow): ConsentFlow<Consent> {
    return {
      load: async (form) => ({ subject: await loadConsent(domain, { token: form.oauthToken, flow }) }),
      appId: (consent) => consent.app.id,
      forceLogin: (_consent, form) => form.forceLogin,
      show: (reply, status, consent, session, shown) => show(reply, status, flow, consent, session, { signedIn: undefined, ...shown }),
      approve: (request, reply, consent, userId) => approve(request, reply, flow, consent, userId),
      async deny(request, reply, consent, userId) {
        const result = await denyAuthorization(domain, { token: consent.requestToken.token, flow, userId, address: request.ip })
        if ('oob' in result) return sendPage(reply, 200, deniedPage(consent.app.name))
        return sendRedirect(reply, result.redirectTo)
      },
    }
  }

  async function getPage(request: FastifyRequest, reply: FastifyReply, flow: AuthorizationFlow) {
    const query = readQuery(request)
    const consent = await loadConsent(domain, { token: query.oauthToken, flow })
    if (options.autoConsent) return autoApprove(request, reply, flow, consent, options.autoConsent)
    const { session, user } = await visitorOf(domain, request, reply)
    if (user && (await isAlreadyGranted(domain, { consent, flow, userId: user.id, forceLogin: query.forceLogin }))) {
      return approve(request, reply, flow, consent, user.id, true)
    }
    const only = onlyMethod(signIn)
    // The one way left to sign in: go there at once rather than show a page with one button.
    if (only && (!user || query.forceLogin)) return sendRedirect(reply, startPath(only, request.url))
    return show(reply, 200, flow, consent, session, {
      signedIn: query.forceLogin ? undefined : user,
      usernamePrefill: query.screenName,
      forceLogin: query.forceLogin,
    })
  }

  return async (app: FastifyInstance) => {
    for (const flow of ['authorize', 'authenticate'] as const) {
      const path = FLOW_PATHS[flow]
      // Every page request counts against its address: the table's row says so (src/web/plugins/rate-limit.ts reads it).
      const config = { rateLimit: path }
      // No automatic HEAD route: a HEAD must never approve anything on authenticate.
      app.get(path, { exposeHeadRoute: false, config }, (request, reply) => getPage(request, reply, flow))
      app.post(path, { config }, consentForm(domain, throttle, formOf(flow), signIn))
    }
  }
}
