// twitter-behaviour §9: the browser step of OAuth 2.0 user context, on the same sign-in, sessions,
// CSRF and throttle as OAuth 1.0a's consent pages (consent-routes.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { DomainDeps } from '../domain/deps.ts'
import {
  authorizationParameters,
  checkAuthorizationRequest,
  parametersOfQuery,
  type AuthorizationRequest,
} from '../domain/oauth2-user/authorization-request.ts'
import { approveAuthorizationRequest, denyAuthorizationRequest } from '../domain/oauth2-user/consent.ts'
import type { SignInThrottle } from '../domain/sign-in.ts'
import { consentToAuthorizationRequest } from '../domain/test-kit/consent.ts'
import { E } from '../errors/catalogue.ts'
import { assertThat } from '../errors/service-error.ts'
import { rawQuery } from '../web/request-url.ts'
import type { UserRecord } from '../storage/records.ts'
import type { ConsentRouteOptions } from './consent-routes.ts'
import { readForm } from './input.ts'
import { sendPage, sendRedirect } from './reply.ts'
import { isCsrfValid, readSession, type Session } from './session.ts'
import { oauth2ConsentPage } from './views/oauth2-consent.ts'
import type { RateLimitedResource } from '../domain/rate-limit-table.ts'
import { liveSessionOf, signInFromForm, signOutForAnotherAccount, visitorOf } from './visitor.ts'

export const OAUTH2_AUTHORIZE_PATH = '/i/oauth2/authorize' satisfies RateLimitedResource

export function oauth2ConsentRoutes(domain: DomainDeps, throttle: SignInThrottle, options: ConsentRouteOptions = {}) {
  const deps = { ...domain, throttle }

  function show(reply: FastifyReply, status: number, request: AuthorizationRequest, session: Session, signedIn: UserRecord | undefined, extra: { usernamePrefill?: string; message?: string } = {}) {
    const page = oauth2ConsentPage({ request, csrfToken: session.csrf, signedIn, usernamePrefill: extra.usernamePrefill ?? '', message: extra.message })
    return sendPage(reply, status, page, { kind: 'consent', callback: request.redirectUri })
  }

  async function approve(request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest, userId: string) {
    const { redirectTo } = await approveAuthorizationRequest(domain, authorization, { userId, address: request.ip })
    return sendRedirect(reply, redirectTo)
  }

  async function getPage(request: FastifyRequest, reply: FastifyReply) {
    const check = await checkAuthorizationRequest(domain, parametersOfQuery(rawQuery(request)))
    if (check.outcome === 'refused') return sendRedirect(reply, check.redirectTo)
    if (options.autoConsent) {
      // Test mode's --auto-consent: "Authorize app" pressed at once by that person.
      const query = check.request.parameters
      const { location } = await consentToAuthorizationRequest(domain, { query, screenName: options.autoConsent, decision: 'allow', address: request.ip })
      return sendRedirect(reply, location)
    }
    const { session, user } = await visitorOf(domain, request, reply)
    return show(reply, 200, check.request, session, check.request.forceLogin ? undefined : user)
  }

  async function postForm(request: FastifyRequest, reply: FastifyReply) {
    const form = readForm(request)
    const session = readSession(request)
    // Checked before anything else, so a forged form changes nothing and counts no sign-in failure.
    assertThat(session && isCsrfValid(session, form.csrfToken), E.formExpired)
    const check = await checkAuthorizationRequest(domain, authorizationParameters(form.fields))
    if (check.outcome === 'refused') return sendRedirect(reply, check.redirectTo)
    const authorization = check.request
    const sessionUser = (await liveSessionOf(domain, session))?.user

    if (form.action === 'cancel') {
      const { redirectTo } = await denyAuthorizationRequest(domain, authorization, { userId: sessionUser?.id, address: request.ip })
      return sendRedirect(reply, redirectTo)
    }
    if (form.action === 'switch') {
      const signedOut = await signOutForAnotherAccount(domain, request, reply, session)
      return show(reply, 200, authorization, signedOut, undefined)
    }
    assertThat(form.action === 'allow', E.badRequest, { detail: 'unknown form action' })

    if (form.credentials) {
      const signedIn = await signInFromForm(deps, request, reply, { ...form.credentials, appId: authorization.app.id })
      if ('refusal' in signedIn) {
        const { refusal } = signedIn
        return show(reply, refusal.status, authorization, session, undefined, { usernamePrefill: form.credentials.username.slice(0, 64), message: refusal.publicMessage })
      }
      return approve(request, reply, authorization, signedIn.user.id)
    }
    const user = authorization.forceLogin ? undefined : sessionUser
    if (!user) return show(reply, 401, authorization, session, undefined, { message: 'Please sign in to authorize this app.' })
    return approve(request, reply, authorization, user.id)
  }

  return async (app: FastifyInstance) => {
    const config = { rateLimit: OAUTH2_AUTHORIZE_PATH } as const
    app.get(OAUTH2_AUTHORIZE_PATH, { exposeHeadRoute: false, config }, getPage)
    app.post(OAUTH2_AUTHORIZE_PATH, { config }, postForm)
  }
}
