import type { FastifyReply, FastifyRequest } from 'fastify'
import { endBrowserSession, resumeBrowserSession, startBrowserSession, type LiveSession } from '../domain/browser-sessions.ts'
import type { DomainDeps } from '../domain/deps.ts'
import { signIn, type SignInThrottle } from '../domain/sign-in.ts'
import { E } from '../errors/catalogue.ts'
import { ServiceError, assertThat } from '../errors/service-error.ts'
import type { UserRecord } from '../storage/records.ts'
import { formFields } from './form-fields.ts'
import { isCsrfValid, newSession, readSession, writeSession, type Session } from './session.ts'

type Deps = Pick<DomainDeps, 'stores' | 'clock' | 'settings'>

/** Who is looking at a page: their session (made if none) and, while it is live, the person signed in. */
export interface Visitor {
  session: Session
  user: UserRecord | undefined
  live: LiveSession | undefined
}

/** The cookie's claim checked against the rows: undefined once the session has ended in any way. */
export async function liveSessionOf(domain: Deps, session: Session | undefined): Promise<LiveSession | undefined> {
  return session?.claim ? resumeBrowserSession(domain, session.claim) : undefined
}

/**
 * "Sign in with another account" on a consent page: the session ends on the server too (a copy of
 * the old cookie is refused afterwards), and the browser gets a fresh signed-out one.
 */
export async function signOutForAnotherAccount(domain: Deps, request: FastifyRequest, reply: FastifyReply, session: Session): Promise<Session> {
  if (session.claim) await endBrowserSession(domain, session.claim.userId, session.claim.sessionId)
  const signedOut = newSession()
  writeSession(request, reply, signedOut)
  return signedOut
}

/** For a GET: the visitor, with a fresh (signed-out) cookie when they had none or theirs has ended. */
export async function visitorOf(domain: Deps, request: FastifyRequest, reply: FastifyReply): Promise<Visitor> {
  let session = readSession(request)
  const live = await liveSessionOf(domain, session)
  if (!session || (session.claim && !live)) {
    // An ended session keeps its CSRF value (a form open in another tab still posts) but loses its claim.
    session = session ? { csrf: session.csrf } : newSession()
    writeSession(request, reply, session)
  }
  return { session, user: live?.user, live }
}

/**
 * For a POST: the form's fields and the visitor, once the form's csrf_token matches the session's.
 * Checked before anything else, so a forged form changes nothing (403 page).
 */
export async function postedForm(domain: Deps, request: FastifyRequest): Promise<Visitor & { fields: Map<string, string> }> {
  const fields = formFields(request)
  const session = readSession(request)
  assertThat(session && isCsrfValid(session, fields.get('csrf_token')), E.formExpired)
  const live = await liveSessionOf(domain, session)
  return { session, user: live?.user, live, fields }
}

/**
 * A new server-side session, and a new cookie (with a new CSRF value, so a value seen before is
 * worth nothing after), for the person who just proved who they are. `remember: false` (a login
 * delegation's answer): the cookie ends with the browser; the server-side limits apply either way.
 */
export async function beginSession(domain: Deps, request: FastifyRequest, reply: FastifyReply, user: UserRecord, options: { remember?: boolean; isFresh?: boolean } = {}): Promise<Session> {
  const claim = await startBrowserSession(domain, { user, userAgent: request.headers['user-agent'], address: request.ip, isFresh: options.isFresh })
  const session: Session = { ...newSession(), claim }
  writeSession(request, reply, session, options.remember === false ? undefined : domain.settings.sessionLifetimeSeconds)
  return session
}

const SIGN_IN_REFUSALS = new Set<number>([E.signInFailed.code, E.signInThrottled.code])

/** A refused sign-in or password (wrong, throttled): its form is shown again with the message (401 or 429), not an error page. */
export const isSignInRefusal = (error: unknown): error is ServiceError => error instanceof ServiceError && SIGN_IN_REFUSALS.has(error.code)

/**
 * A sign-in from a page's form: on success the person's new browser session has begun; a refusal
 * (wrong password, throttled) is returned for the form to show again; anything else is thrown.
 */
export async function signInFromForm(
  domain: Deps & Pick<DomainDeps, 'observe'> & { throttle: SignInThrottle },
  request: FastifyRequest,
  reply: FastifyReply,
  credentials: { username: string; password: string; appId?: string },
): Promise<{ user: UserRecord } | { refusal: ServiceError }> {
  let user: UserRecord
  try {
    user = await signIn(domain, { ...credentials, address: request.ip })
  } catch (error) {
    if (isSignInRefusal(error)) return { refusal: error }
    throw error
  }
  await beginSession(domain, request, reply, user)
  return { user }
}
