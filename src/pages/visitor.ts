import type { FastifyReply, FastifyRequest } from 'fastify'
import { resumeBrowserSession, startBrowserSession, type LiveSession } from '../domain/browser-sessions.ts'
import type { DomainDeps } from '../domain/deps.ts'
import { E } from '../errors/catalogue.ts'
import { assertThat } from '../errors/service-error.ts'
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
 * worth nothing after), for the person who just proved who they are.
 */
export async function beginSession(domain: Deps, request: FastifyRequest, reply: FastifyReply, user: UserRecord): Promise<Session> {
  const claim = await startBrowserSession(domain, { user, userAgent: request.headers['user-agent'], address: request.ip })
  const session: Session = { ...newSession(), claim }
  writeSession(request, reply, session, domain.settings.sessionLifetimeSeconds)
  return session
}
