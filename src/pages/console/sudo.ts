import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { markPasswordFresh } from '../../domain/browser-sessions.ts'
import { confirmPassword } from '../../domain/sign-in.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { sendPage, sendRedirect } from '../reply.ts'
import { confirmPasswordPage } from '../views/account.ts'
import { isSignInRefusal } from '../visitor.ts'
import { personPosting, safeNext, type PageContext, type Person } from './context.ts'

/**
 * A fresh password ("sudo mode") before a sensitive action: showing or regenerating a consumer
 * secret, an owner token or a bearer token, signing with the owner token in the OAuth tool,
 * deleting an app. When the password was not entered in this session within the last 10 minutes
 * (FRESH_PASSWORD_MS), the action answers "Confirm your password" instead; the form posts the same action again with its fields and the password, which
 * is counted by the sign-in throttle like any sign-in. A page to be shown (a consumer secret after
 * creation) is confirmed through POST /console/sudo, which leads back to it.
 */
const PASSWORD_FIELD = 'sudo_password'
const SUDO_PATH = '/console/sudo'

function ask(reply: FastifyReply, person: Person, action: string, hidden: Map<string, string>, refusal?: ServiceError) {
  const page = confirmPasswordPage({ csrfToken: person.session.csrf, user: person.user, action, hidden, message: refusal?.publicMessage })
  return sendPage(reply, refusal?.status ?? 200, page, { kind: 'self' })
}

/**
 * For a POST that needs a fresh password: true when it may go on (fresh, or the password posted
 * with it is right); otherwise the confirmation page has been sent.
 */
export async function hasFreshPassword(context: PageContext, request: FastifyRequest, reply: FastifyReply, person: Person & { fields: Map<string, string> }): Promise<boolean> {
  if (person.live.isPasswordFresh) return true
  const password = person.fields.get(PASSWORD_FIELD)
  const hidden = new Map([...person.fields].filter(([name]) => name !== 'csrf_token' && name !== PASSWORD_FIELD))
  const action = request.url.split('?')[0] ?? request.url
  if (password === undefined) {
    await ask(reply, person, action, hidden)
    return false
  }
  try {
    await confirmPassword({ ...context.domain, throttle: context.throttle }, { user: person.user, password, address: request.ip })
  } catch (error) {
    if (!isSignInRefusal(error)) throw error
    await ask(reply, person, action, hidden, error)
    return false
  }
  await markPasswordFresh(context.domain, person.live)
  return true
}

/** For a GET that shows a secret: true when fresh; otherwise the confirmation page (leading back to `path`) has been sent. */
export async function hasFreshPasswordToShow(reply: FastifyReply, person: Person, path: string): Promise<boolean> {
  if (person.live.isPasswordFresh) return true
  await ask(reply, person, SUDO_PATH, new Map([['next', path]]))
  return false
}

export function sudoRoutes(context: PageContext) {
  async function postSudo(request: FastifyRequest, reply: FastifyReply) {
    const person = await personPosting(context, request, reply)
    if (!person) return reply
    if (!(await hasFreshPassword(context, request, reply, person))) return reply
    return sendRedirect(reply, safeNext(person.fields.get('next')))
  }
  return async (app: FastifyInstance) => {
    app.post(SUDO_PATH, postSudo)
  }
}
