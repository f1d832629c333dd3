import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { personActor, withAuditActor } from '../../domain/actor.ts'
import { ownedApps } from '../../domain/console/owned-apps.ts'
import { createApp } from '../../domain/registry/apps.ts'
import { createUser } from '../../domain/registry/users.ts'
import { E } from '../../errors/catalogue.ts'
import { assertThat } from '../../errors/service-error.ts'
import type { UserRecord } from '../../storage/records.ts'
import { queryValue } from '../input.ts'
import { sendPage, sendRedirect } from '../reply.ts'
import { endBrowserSession, markSecretToReveal } from '../../domain/browser-sessions.ts'
import { newSession, writeSession } from '../session.ts'
import { EMPTY_APP_FORM, appListPage, newAppPage } from '../views/console-apps.ts'
import { signUpPage } from '../views/frame.ts'
import { beginSession, postedForm, signInFromForm, visitorOf } from '../visitor.ts'
import { appFormOf, isFormMistake, settingsOf } from './app-form.ts'
import { addressKey, personOrSignIn, personPosting, safeNext, showSignIn, spendPageLimit, type PageContext } from './context.ts'

/** A refused sign-in shows the form again with the message (401 or 429), not an error page. */


export function consoleAccountRoutes(context: PageContext) {
  const { domain } = context

  async function postSignIn(request: FastifyRequest, reply: FastifyReply) {
    const form = await postedForm(domain, request)
    // Password sign-in off: refused before the throttle, so it is counted nowhere.
    assertThat(context.signIn.password, E.passwordSignInOff)
    const next = safeNext(form.fields.get('next'))
    const username = form.fields.get('username') ?? ''
    const signedIn = await signInFromForm({ ...domain, throttle: context.throttle }, request, reply, { username, password: form.fields.get('password') ?? '' })
    if ('refusal' in signedIn) {
      return showSignIn(context, reply, form, next, { status: signedIn.refusal.status, message: signedIn.refusal.publicMessage, username: username.slice(0, 64) })
    }
    return sendRedirect(reply, next)
  }

  async function postSignOut(request: FastifyRequest, reply: FastifyReply) {
    const form = await postedForm(domain, request)
    // Ended on the server: a copy of the cookie is signed out too.
    if (form.session.claim) await endBrowserSession(domain, form.session.claim.userId, form.session.claim.sessionId)
    writeSession(request, reply, newSession())
    return sendRedirect(reply, '/console')
  }

  async function getSignUp(request: FastifyRequest, reply: FastifyReply) {
    assertThat(context.allowSignup, E.signUpClosed)
    const visitor = await visitorOf(domain, request, reply)
    if (visitor.user) return sendRedirect(reply, '/console')
    return sendPage(reply, 200, signUpPage({ csrfToken: visitor.session.csrf, screenName: '', name: '' }), { kind: 'self' })
  }

  async function postSignUp(request: FastifyRequest, reply: FastifyReply) {
    assertThat(context.allowSignup, E.signUpClosed)
    const form = await postedForm(domain, request)
    await spendPageLimit(context.limits.signUps, addressKey(request))
    const screenName = (form.fields.get('screen_name') ?? '').trim()
    const name = form.fields.get('name') ?? ''
    let user: UserRecord
    try {
      user = await createUser(withAuditActor(domain, 'sign_up'), { screenName, name, password: form.fields.get('password') ?? '' })
    } catch (error) {
      if (!isFormMistake(error)) throw error
      const page = signUpPage({ csrfToken: form.session.csrf, screenName: screenName.slice(0, 64), name: name.slice(0, 100), message: error.publicMessage })
      return sendPage(reply, error.status, page, { kind: 'self' })
    }
    await beginSession(domain, request, reply, user)
    return sendRedirect(reply, '/console')
  }

  async function getConsole(request: FastifyRequest, reply: FastifyReply) {
    const person = await personOrSignIn(context, request, reply, '/console')
    if (!person) return reply
    const after = queryValue(request, 'after')
    const afterId = after !== undefined && /^\d{1,20}$/.test(after) ? after : undefined
    const { apps, nextAfter } = await ownedApps(domain, person.user.id, afterId)
    const page = appListPage({ csrfToken: person.session.csrf, user: person.user, apps, isFirstPage: afterId === undefined, nextAfter })
    return sendPage(reply, 200, page, { kind: 'self' })
  }

  async function getNewApp(request: FastifyRequest, reply: FastifyReply) {
    const person = await personOrSignIn(context, request, reply, '/console')
    if (!person) return reply
    return sendPage(reply, 200, newAppPage({ csrfToken: person.session.csrf, user: person.user, values: EMPTY_APP_FORM }), { kind: 'self' })
  }

  async function postNewApp(request: FastifyRequest, reply: FastifyReply) {
    const person = await personPosting(context, request, reply)
    if (!person) return reply
    const values = appFormOf(person.fields)
    try {
      const app = await createApp(withAuditActor(domain, personActor(person.user.id)), { ...settingsOf(values), name: values.name, owner: person.user.id })
      await markSecretToReveal(domain, person.live, app)
      return sendRedirect(reply, `/console/apps/${app.id}`)
    } catch (error) {
      if (!isFormMistake(error)) throw error
      const page = newAppPage({ csrfToken: person.session.csrf, user: person.user, values, message: error.publicMessage })
      return sendPage(reply, error.status, page, { kind: 'self' })
    }
  }

  return async (app: FastifyInstance) => {
    app.get('/console', getConsole)
    app.post('/console/sign-in', postSignIn)
    app.post('/console/sign-out', postSignOut)
    app.get('/console/signup', getSignUp)
    app.post('/console/signup', postSignUp)
    app.get('/console/apps/new', getNewApp)
    app.post('/console/apps', postNewApp)
  }
}
