import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { markPasswordFresh } from '../../domain/browser-sessions.ts'
import { confirmPassword } from '../../domain/sign-in.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { sendPage, sendRedirect } from '../reply.ts'
import { NO_PASSWORD } from '../../domain/passwords.ts'
import { confirmPasswordPage, confirmWithProviderPage } from '../views/account.ts'
import { isSignInRefusal } from '../visitor.ts'
import { personPosting, safeNext, type PageContext, type Person } from './context.ts'

/**
 * A fresh password ("sudo mode") before a sensitive action: showing or regenerating a consumer
 * secret, an owner token or a bearer token, signing with the owner token in the OAuth tool,
 * deleting an app. When the password was not entered in this session within the last 10 minutes
 * (FRESH_PASSWORD_MS), the action answers "Confirm your password" instead; the form posts the same action again with its fields and the password, which
 * is counted by the sign-in throttle like any sign-in. A page to be shown (a consumer secret after
 * creation) is confirmed through POST /console/sudo, which leads back to it. A person without a
 * password (NO_PASSWORD: signed in through a provider) is sent instead to sign in again at a
 * provider their account is linked to, asked to authenticate afresh, and repeats the action after.
 */
const PASSWORD_FIELD = 'sudo_password'
const SUDO_PATH = '/console/sudo'

/** Where a person confirming at their provider comes back to: the page shown, or the app page of the action. */
function returnPathOf(action: string, hidden: Map<string, string>): string {
  const next = hidden.get('next')
  if (next !== undefined) return safeNext(next)
  return safeNext(/^\/console\/apps\/\d{1,20}/.exec(action)?.[0])
}

async function ask(context: PageContext, reply: FastifyReply, person: Person, action: string, hidden: Map<string, string>, refusal?: ServiceError) {
  if (person.user.passwordHash === NO_PASSWORD) {
    // No password to enter: they sign in again at a provider their account is linked to.
    const links = await context.domain.stores.identityLinks.listForUser(person.user.id)
    const methods = context.signIn.methods.filter((method) => method.kind === 'oidc' && links.some((link) => link.provider === method.id))
    const page = confirmWithProviderPage({ csrfToken: person.session.csrf, user: person.user, methods, returnTo: returnPathOf(action, hidden) })
    return sendPage(reply, 200, page, { kind: 'self' })
  }
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
    await ask(context, reply, person, action, hidden)
    return false
  }
  try {
    await confirmPassword({ ...context.domain, throttle: context.throttle }, { user: person.user, password, address: request.ip })
  } catch (error) {
    if (!isSignInRefusal(error)) throw error
    await ask(context, reply, person, action, hidden, error)
    return false
  }
  await markPasswordFresh(context.domain, person.live)
  return true
}

/** For a GET that shows a secret: true when fresh; otherwise the confirmation page (leading back to `path`) has been sent. */
export async function hasFreshPasswordToShow(context: PageContext, reply: FastifyReply, person: Person, path: string): Promise<boolean> {
  if (person.live.isPasswordFresh) return true
  await ask(context, reply, person, SUDO_PATH, new Map([['next', path]]))
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
