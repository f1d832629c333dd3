import type { FastifyReply, FastifyRequest } from 'fastify'
import type { DomainDeps } from '../domain/deps.ts'
import { E } from '../errors/catalogue.ts'
import { assertThat } from '../errors/service-error.ts'
import type { UserRecord } from '../storage/records.ts'
import { formFields } from './form-fields.ts'
import { isCsrfValid, newSession, readSession, writeSession, type Session } from './session.ts'

/** Who is looking at a console or settings page: their session (made if none) and the person signed in. */
export interface Visitor {
  session: Session
  user: UserRecord | undefined
}

async function userOf(domain: Pick<DomainDeps, 'stores'>, session: Session | undefined): Promise<UserRecord | undefined> {
  return session?.userId ? domain.stores.users.findById(session.userId) : undefined
}

/** For a GET: the visitor, with a fresh (signed-out) session cookie when they had none. */
export async function visitorOf(domain: Pick<DomainDeps, 'stores' | 'clock'>, request: FastifyRequest, reply: FastifyReply): Promise<Visitor> {
  let session = readSession(request, domain.clock.nowMs())
  if (!session) {
    session = newSession()
    writeSession(request, reply, session)
  }
  return { session, user: await userOf(domain, session) }
}

/**
 * For a POST: the form's fields and the visitor, once the form's csrf_token matches the session's.
 * Checked before anything else, so a forged form changes nothing (403 page).
 */
export async function postedForm(
  domain: Pick<DomainDeps, 'stores' | 'clock'>,
  request: FastifyRequest,
): Promise<Visitor & { fields: Map<string, string> }> {
  const fields = formFields(request)
  const session = readSession(request, domain.clock.nowMs())
  assertThat(session && isCsrfValid(session, fields.get('csrf_token')), E.formExpired)
  return { session, user: await userOf(domain, session), fields }
}
