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
import { E } from '../errors/catalogue.ts'
import { assertThat } from '../errors/service-error.ts'
import type { UserRecord } from '../storage/records.ts'
import { readForm, readQuery } from './input.ts'
import { sendPage, sendRedirect } from './reply.ts'
import { isCsrfValid, readSession, type Session } from './session.ts'
import { liveSessionOf, signInFromForm, signOutForAnotherAccount, visitorOf } from './visitor.ts'
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
}

export function consentRoutes(domain: DomainDeps, throttle: SignInThrottle, options: ConsentRouteOptions = {}) {
  const deps = { ...domain, throttle }

  function show(reply: FastifyReply, status: number, flow: AuthorizationFlow, consent: Consent, session: Session, options: ShowOptions) {
    const page = consentPage({ action: FLOW_PATHS[flow], consent, csrfToken: session.csrf, ...options })
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

  /** The signed-in person, while the session is live (src/domain/browser-sessions.ts). */
  async function sessionUser(session: Session | undefined): Promise<UserRecord | undefined> {
    return (await liveSessionOf(domain, session))?.user
  }

  async function getPage(request: FastifyRequest, reply: FastifyReply, flow: AuthorizationFlow) {
    const query = readQuery(request)
    const consent = await loadConsent(domain, { token: query.oauthToken, flow })
    if (options.autoConsent) return autoApprove(request, reply, flow, consent, options.autoConsent)
    const { session, user } = await visitorOf(domain, request, reply)
    if (user && (await isAlreadyGranted(domain, { consent, flow, userId: user.id, forceLogin: query.forceLogin }))) {
      return approve(request, reply, flow, consent, user.id, true)
    }
    return show(reply, 200, flow, consent, session, {
      signedIn: query.forceLogin ? undefined : user,
      usernamePrefill: query.screenName,
      forceLogin: query.forceLogin,
    })
  }

  async function postForm(request: FastifyRequest, reply: FastifyReply, flow: AuthorizationFlow) {
    const form = readForm(request)
    const session = readSession(request)
    // Checked before anything else, so a forged form changes nothing and counts no sign-in failure.
    assertThat(session && isCsrfValid(session, form.csrfToken), E.formExpired)
    const consent = await loadConsent(domain, { token: form.oauthToken, flow })
    const token = consent.requestToken.token

    if (form.action === 'cancel') {
      const result = await denyAuthorization(domain, { token, flow, userId: (await sessionUser(session))?.id, address: request.ip })
      if ('oob' in result) return sendPage(reply, 200, deniedPage(consent.app.name))
      return sendRedirect(reply, result.redirectTo)
    }
    if (form.action === 'switch') {
      const signedOut = await signOutForAnotherAccount(domain, request, reply, session)
      return show(reply, 200, flow, consent, signedOut, { signedIn: undefined, usernamePrefill: '', forceLogin: form.forceLogin })
    }
    assertThat(form.action === 'allow', E.badRequest, { detail: 'unknown form action' })

    if (form.credentials) {
      const signedIn = await signInFromForm(deps, request, reply, { ...form.credentials, appId: consent.app.id })
      if ('refusal' in signedIn) {
        return show(reply, signedIn.refusal.status, flow, consent, session, {
          signedIn: undefined,
          usernamePrefill: form.credentials.username.slice(0, 64),
          forceLogin: form.forceLogin,
          message: signedIn.refusal.publicMessage,
        })
      }
      return approve(request, reply, flow, consent, signedIn.user.id)
    }

    const user = form.forceLogin ? undefined : await sessionUser(session)
    if (!user) {
      return show(reply, 401, flow, consent, session, {
        signedIn: undefined,
        usernamePrefill: '',
        forceLogin: form.forceLogin,
        message: 'Please sign in to authorize this app.',
      })
    }
    return approve(request, reply, flow, consent, user.id)
  }

  return async (app: FastifyInstance) => {
    for (const flow of ['authorize', 'authenticate'] as const) {
      const path = FLOW_PATHS[flow]
      // Every page request counts against its address: the table's row says so (src/web/plugins/rate-limit.ts reads it).
      const config = { rateLimit: path }
      // No automatic HEAD route: a HEAD must never approve anything on authenticate.
      app.get(path, { exposeHeadRoute: false, config }, (request, reply) => getPage(request, reply, flow))
      app.post(path, { config }, (request, reply) => postForm(request, reply, flow))
    }
  }
}
