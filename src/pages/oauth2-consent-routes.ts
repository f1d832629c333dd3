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
import { rawQuery } from '../web/request-url.ts'
import type { UserRecord } from '../storage/records.ts'
import type { ConsentRouteOptions } from './consent-routes.ts'
import { onlyMethod, PASSWORD_ONLY, startPath } from './sign-in-methods.ts'
import { consentForm, type ConsentFlow } from './consent-form.ts'
import { sendPage, sendRedirect } from './reply.ts'
import type { Session } from './session.ts'
import { oauth2ConsentPage } from './views/oauth2-consent.ts'
import type { RateLimitedResource } from '../domain/rate-limit-table.ts'
import { visitorOf } from './visitor.ts'

export const OAUTH2_AUTHORIZE_PATH = '/i/oauth2/authorize' satisfies RateLimitedResource

export function oauth2ConsentRoutes(domain: DomainDeps, throttle: SignInThrottle, options: ConsentRouteOptions = {}) {
  function show(reply: FastifyReply, status: number, request: AuthorizationRequest, session: Session, signedIn: UserRecord | undefined, extra: { usernamePrefill?: string; message?: string } = {}) {
    const signInOptions = options.signIn ?? PASSWORD_ONLY
    const page = oauth2ConsentPage({ request, csrfToken: session.csrf, signedIn, usernamePrefill: extra.usernamePrefill ?? '', message: extra.message, signInOptions })
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
    const only = onlyMethod(options.signIn ?? PASSWORD_ONLY)
    // The one way left to sign in: go there at once rather than show a page with one button.
    if (only && (!user || check.request.forceLogin)) return sendRedirect(reply, startPath(only, request.url))
    return show(reply, 200, check.request, session, check.request.forceLogin ? undefined : user)
  }

  /** What the form's skeleton (consent-form.ts) needs of this flow. */
  const form: ConsentFlow<AuthorizationRequest> = {
    async load(fields) {
      const check = await checkAuthorizationRequest(domain, authorizationParameters(fields.fields))
      return check.outcome === 'refused' ? { redirectTo: check.redirectTo } : { subject: check.request }
    },
    appId: (authorization) => authorization.app.id,
    forceLogin: (authorization) => authorization.forceLogin,
    show: (reply, status, authorization, session, { usernamePrefill, message }) => show(reply, status, authorization, session, undefined, { usernamePrefill, message }),
    approve,
    async deny(request, reply, authorization, userId) {
      const { redirectTo } = await denyAuthorizationRequest(domain, authorization, { userId, address: request.ip })
      return sendRedirect(reply, redirectTo)
    },
  }

  return async (app: FastifyInstance) => {
    const config = { rateLimit: OAUTH2_AUTHORIZE_PATH } as const
    app.get(OAUTH2_AUTHORIZE_PATH, { exposeHeadRoute: false, config }, getPage)
    app.post(OAUTH2_AUTHORIZE_PATH, { config }, consentForm(domain, throttle, form, options.signIn))
  }
}
