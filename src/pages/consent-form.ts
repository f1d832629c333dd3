// The consent pages' form (POST), one skeleton for OAuth 1.0a's (consent-routes.ts) and OAuth
// 2.0's (oauth2-consent-routes.ts): the session, CSRF, the decision, the sign-in, then the answer.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { DomainDeps } from '../domain/deps.ts'
import type { SignInThrottle } from '../domain/sign-in.ts'
import { E } from '../errors/catalogue.ts'
import { assertThat } from '../errors/service-error.ts'
import { readForm, type PageForm } from './input.ts'
import { sendRedirect } from './reply.ts'
import { PASSWORD_ONLY, type SignInOptions } from './sign-in-methods.ts'
import { isCsrfValid, readSession, type Session } from './session.ts'
import { liveSessionOf, signInFromForm, signOutForAnotherAccount } from './visitor.ts'

/** How the form's page is shown again: always signed out, with what the person typed and why. */
export interface ShownAgain {
  usernamePrefill: string
  forceLogin: boolean
  message?: string
}

/** What differs between the two flows: the request a form is about, its page, and its two outcomes. */
export interface ConsentFlow<Subject> {
  /** The request the form answers; or, for a request refused on the client's side, where to send the browser. */
  load(form: PageForm): Promise<{ subject: Subject } | { redirectTo: string }>
  appId(subject: Subject): string
  /** The person must sign in here whatever their session says. */
  forceLogin(subject: Subject, form: PageForm): boolean
  show(reply: FastifyReply, status: number, subject: Subject, session: Session, shown: ShownAgain): FastifyReply
  approve(request: FastifyRequest, reply: FastifyReply, subject: Subject, userId: string): Promise<FastifyReply>
  /** "Cancel": `userId` is the signed-in person's, when there is one. */
  deny(request: FastifyRequest, reply: FastifyReply, subject: Subject, userId: string | undefined): Promise<FastifyReply>
}

/** The POST handler of a consent page. */
export function consentForm<Subject>(domain: DomainDeps, throttle: SignInThrottle, flow: ConsentFlow<Subject>, signIn: SignInOptions = PASSWORD_ONLY) {
  const deps = { ...domain, throttle }
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const form = readForm(request)
    const session = readSession(request)
    // Checked before anything else, so a forged form changes nothing and counts no sign-in failure.
    assertThat(session && isCsrfValid(session, form.csrfToken), E.formExpired)
    const loaded = await flow.load(form)
    if ('redirectTo' in loaded) return sendRedirect(reply, loaded.redirectTo)
    const { subject } = loaded
    const forceLogin = flow.forceLogin(subject, form)
    /** The signed-in person, while the session is live (src/domain/browser-sessions.ts). */
    const sessionUser = async () => (await liveSessionOf(domain, session))?.user

    if (form.action === 'cancel') return flow.deny(request, reply, subject, (await sessionUser())?.id)
    if (form.action === 'switch') {
      const signedOut = await signOutForAnotherAccount(domain, request, reply, session)
      return flow.show(reply, 200, subject, signedOut, { usernamePrefill: '', forceLogin })
    }
    assertThat(form.action === 'allow', E.badRequest, { detail: 'unknown form action' })

    if (form.credentials) {
      // Password sign-in off: refused before the throttle, so it is counted nowhere.
      assertThat(signIn.password, E.passwordSignInOff)
      const signedIn = await signInFromForm(deps, request, reply, { ...form.credentials, appId: flow.appId(subject) })
      if ('refusal' in signedIn) {
        const { refusal } = signedIn
        return flow.show(reply, refusal.status, subject, session, { usernamePrefill: form.credentials.username.slice(0, 64), forceLogin, message: refusal.publicMessage })
      }
      return flow.approve(request, reply, subject, signedIn.user.id)
    }
    const user = forceLogin ? undefined : await sessionUser()
    if (!user) return flow.show(reply, 401, subject, session, { usernamePrefill: '', forceLogin, message: 'Please sign in to authorize this app.' })
    return flow.approve(request, reply, subject, user.id)
  }
}
