import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { endBrowserSession, endOtherBrowserSessions, listBrowserSessions } from '../../domain/browser-sessions.ts'
import { changeOwnPassword } from '../../domain/console/change-password.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { personOrSignIn, personPosting, type PageContext, type Person } from '../console/context.ts'
import { sendPage, sendRedirect } from '../reply.ts'
import { newSession, writeSession } from '../session.ts'
import { passwordPage, sessionsPage } from '../views/account.ts'
import { beginSession, isSignInRefusal } from '../visitor.ts'

const SESSIONS = '/settings/sessions'
const PASSWORD = '/settings/password'
const SESSION_ID = /^[A-Za-z0-9]{32}$/
/** A refused password shows the form again with the message: wrong (401), throttled (429) or an unfit new one (400). */
const isPasswordRefusal = (error: unknown): error is ServiceError => isSignInRefusal(error) || (error instanceof ServiceError && error.code === E.invalidParameter.code)

/** The labels of a person's identity links: the sign-in method's label when offered, else the provider's id. */
async function signedInThroughOf(context: PageContext, userId: string): Promise<string[]> {
  const links = await context.domain.stores.identityLinks.listForUser(userId)
  return links.map((link) => context.signIn.methods.find((method) => method.id === link.provider)?.label ?? link.provider)
}

/** The session list (/settings/sessions) and the password change (/settings/password). */
export function accountSettingsRoutes(context: PageContext) {
  const { domain } = context

  async function showSessions(reply: FastifyReply, person: Pick<Person, 'session' | 'user' | 'live'>, message?: string) {
    const sessions = await listBrowserSessions(domain, person.user.id)
    const signedInThrough = await signedInThroughOf(context, person.user.id)
    const page = sessionsPage({ csrfToken: person.session.csrf, user: person.user, sessions, currentId: person.live.session.id, message, signedInThrough })
    return sendPage(reply, 200, page, { kind: 'self' })
  }

  async function getSessions(request: FastifyRequest, reply: FastifyReply) {
    const person = await personOrSignIn(context, request, reply, SESSIONS)
    if (!person) return reply
    return showSessions(reply, person)
  }

  /** Signs out one session of the person; their current one signs this browser out. Another's id is a 404. */
  async function postEnd(request: FastifyRequest, reply: FastifyReply) {
    const person = await personPosting(context, request, reply)
    if (!person) return reply
    const id = person.fields.get('session') ?? ''
    const ended = SESSION_ID.test(id) && (await endBrowserSession(domain, person.user.id, id))
    if (!ended) throw new ServiceError(E.notFound, { message: 'no such session' })
    if (id === person.live.session.id) {
      writeSession(request, reply, newSession())
      return sendRedirect(reply, SESSIONS)
    }
    return showSessions(reply, person, 'That session is signed out.')
  }

  async function postEndOthers(request: FastifyRequest, reply: FastifyReply) {
    const person = await personPosting(context, request, reply)
    if (!person) return reply
    const ended = await endOtherBrowserSessions(domain, person.live, request.ip)
    return showSessions(reply, person, ended === 1 ? '1 other session is signed out.' : `${ended} other sessions are signed out.`)
  }

  async function getPassword(request: FastifyRequest, reply: FastifyReply) {
    const person = await personOrSignIn(context, request, reply, PASSWORD)
    if (!person) return reply
    return sendPage(reply, 200, passwordPage({ csrfToken: person.session.csrf, user: person.user }), { kind: 'self' })
  }

  /** The current password always (counted by the sign-in throttle); every session ends, and this browser gets a new one. */
  async function postPassword(request: FastifyRequest, reply: FastifyReply) {
    const person = await personPosting(context, request, reply)
    if (!person) return reply
    const input = { user: person.user, current: person.fields.get('current_password') ?? '', next: person.fields.get('new_password') ?? '', address: request.ip }
    let updated
    try {
      updated = await changeOwnPassword({ ...domain, throttle: context.throttle }, input)
    } catch (error) {
      if (!isPasswordRefusal(error)) throw error
      return sendPage(reply, error.status, passwordPage({ csrfToken: person.session.csrf, user: person.user, message: error.publicMessage }), { kind: 'self' })
    }
    const session = await beginSession(domain, request, reply, updated)
    const message = 'Your password is changed. Every other session is signed out.'
    return sendPage(reply, 200, passwordPage({ csrfToken: session.csrf, user: updated, message, isDone: true }), { kind: 'self' })
  }

  return async (app: FastifyInstance) => {
    app.get(SESSIONS, getSessions)
    app.post(`${SESSIONS}/end`, postEnd)
    app.post(`${SESSIONS}/end-others`, postEndOthers)
    app.get(PASSWORD, getPassword)
    app.post(PASSWORD, postPassword)
  }
}
