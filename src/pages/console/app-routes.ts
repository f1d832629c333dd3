import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { personActor, withAuditActor } from '../../domain/actor.ts'
import { revokeAuthorization, revokeBearerToken } from '../../domain/admin/people.ts'
import { hasSecretToReveal, markSecretToReveal, takeSecretToReveal } from '../../domain/browser-sessions.ts'
import { appUsage } from '../../domain/console/app-usage.ts'
import { ownedApp } from '../../domain/console/owned-apps.ts'
import { handOutBearerToken } from '../../domain/oauth2/bearer-token.ts'
import { regenerateClientSecret, setOAuth2Client, type ClientChange, type OAuth2Setting } from '../../domain/oauth2-user/clients.ts'
import { E } from '../../errors/catalogue.ts'
import { deleteApp, rotateAppKeys, updateApp } from '../../domain/registry/apps.ts'
import { issueOwnerToken } from '../../domain/registry/owner-token.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { AppRecord, UserRecord } from '../../storage/records.ts'
import { sendPage, sendRedirect } from '../reply.ts'
import { appPage, deleteAppPage, type AppFormValues, type Revealed } from '../views/console-apps.ts'
import { minute } from '../views/frame.ts'
import { signatureFailuresPage } from '../views/signature-failures.ts'
import { oauthToolPage } from '../views/oauth-tool.ts'
import { signWithTool, type ToolRequest } from '../../domain/console/oauth-tool.ts'
import { publicOrigin } from '../../web/request-url.ts'
import { appFormOf, isFormMistake, settingsOf } from './app-form.ts'
import { personOrSignIn, personPosting, type PageContext } from './context.ts'
import { hasFreshPassword, hasFreshPasswordToShow } from './sudo.ts'

type AppRequest = FastifyRequest<{ Params: { app_id: string } }>

const CONSUMER_NOTE = 'Copy the consumer secret now: it is not shown again. If you lose it, regenerate the keys.'

export function consoleAppRoutes(context: PageContext) {
  const { domain } = context

  interface Shown {
    status?: number
    revealed?: Revealed | undefined
    message?: string | undefined
    values?: AppFormValues
  }

  async function show(reply: FastifyReply, csrfToken: string, user: UserRecord, app: AppRecord, shown: Shown = {}) {
    const [usage, oauth2Client] = await Promise.all([appUsage(domain, app), domain.stores.oauth2Clients.findByAppId(app.id)])
    const page = appPage({ csrfToken, user, app, oauth2Client, usage, revealed: shown.revealed, message: shown.message, ...(shown.values ? { values: shown.values } : {}) })
    return sendPage(reply, shown.status ?? 200, page, { kind: 'self' })
  }

  async function getApp(request: AppRequest, reply: FastifyReply) {
    const person = await personOrSignIn(context, request, reply, `/console/apps/${request.params.app_id}`)
    if (!person) return reply
    const app = await ownedApp(domain, person.user.id, request.params.app_id)
    if (!hasSecretToReveal(domain, person.live, app)) return show(reply, person.session.csrf, person.user, app, {})
    // The secret is shown only to a fresh password; the mark waits (5 minutes) while it is confirmed.
    if (!(await hasFreshPasswordToShow(context, reply, person, `/console/apps/${app.id}`))) return reply
    const revealed: Revealed | undefined = (await takeSecretToReveal(domain, person.live, app))
      ? {
          heading: 'Your consumer key and secret',
          note: CONSUMER_NOTE,
          values: [
            { id: 'consumer_key', label: 'Consumer key', value: app.consumerKey },
            { id: 'consumer_secret', label: 'Consumer secret', value: app.consumerSecret },
          ],
        }
      : undefined
    return show(reply, person.session.csrf, person.user, app, { revealed })
  }

  /**
   * A POST about one of the person's apps: CSRF, sign-in, the change budget, then 404 unless theirs;
   * with `sensitive`, a fresh password too (undefined once the confirmation page is sent).
   */
  async function appPosting(request: AppRequest, reply: FastifyReply, options: { sensitive?: boolean } = {}) {
    const person = await personPosting(context, request, reply)
    if (!person) return undefined
    const app = await ownedApp(domain, person.user.id, request.params.app_id)
    if (options.sensitive && !(await hasFreshPassword(context, request, reply, person))) return undefined
    return { ...person, app, acting: withAuditActor(domain, personActor(person.user.id)) }
  }

  async function postEdit(request: AppRequest, reply: FastifyReply) {
    const posted = await appPosting(request, reply)
    if (!posted) return reply
    const values = appFormOf(posted.fields)
    try {
      const updated = await updateApp(posted.acting, posted.app.id, settingsOf(values))
      return show(reply, posted.session.csrf, posted.user, updated, { message: 'Saved.' })
    } catch (error) {
      if (!isFormMistake(error)) throw error
      return show(reply, posted.session.csrf, posted.user, posted.app, { status: error.status, message: error.publicMessage, values })
    }
  }

  // The owner acts here: an operator's suspension is theirs to lift, not the owner's (the page says why).
  const setSuspended = (isSuspended: boolean) => async (request: AppRequest, reply: FastifyReply) => {
    const posted = await appPosting(request, reply)
    if (!posted) return reply
    try {
      await updateApp(posted.acting, posted.app.id, { isSuspended }, { by: 'owner' })
    } catch (error) {
      return show(reply, posted.session.csrf, posted.user, posted.app, refusalShown(error))
    }
    return sendRedirect(reply, `/console/apps/${posted.app.id}`)
  }

  async function getDelete(request: AppRequest, reply: FastifyReply) {
    const person = await personOrSignIn(context, request, reply, `/console/apps/${request.params.app_id}`)
    if (!person) return reply
    const app = await ownedApp(domain, person.user.id, request.params.app_id)
    return sendPage(reply, 200, deleteAppPage({ csrfToken: person.session.csrf, user: person.user, app }), { kind: 'self' })
  }

  async function getFailures(request: AppRequest, reply: FastifyReply) {
    const person = await personOrSignIn(context, request, reply, `/console/apps/${request.params.app_id}/failures`)
    if (!person) return reply
    const app = await ownedApp(domain, person.user.id, request.params.app_id)
    const failures = (await domain.signatureFailures?.recent(app.id, domain.clock.nowMs())) ?? []
    return sendPage(reply, 200, signatureFailuresPage({ csrfToken: person.session.csrf, user: person.user, app, failures }), { kind: 'self' })
  }

  /** The OAuth tool's form as first shown: a GET of verify_credentials on this service, with the developer's token. */
  function defaultToolRequest(request: FastifyRequest): ToolRequest {
    const origin = publicOrigin(request, context.publicUrl)
    return { method: 'GET', url: `${origin.scheme}://${origin.host}/1.1/account/verify_credentials.json`, parameters: '', withToken: true }
  }

  async function getOAuthTool(request: AppRequest, reply: FastifyReply) {
    const person = await personOrSignIn(context, request, reply, `/console/apps/${request.params.app_id}/oauth-tool`)
    if (!person) return reply
    const app = await ownedApp(domain, person.user.id, request.params.app_id)
    return sendPage(reply, 200, oauthToolPage({ csrfToken: person.session.csrf, user: person.user, app, request: defaultToolRequest(request) }), { kind: 'self' })
  }

  async function postOAuthTool(request: AppRequest, reply: FastifyReply) {
    const posted = await appPosting(request, reply)
    if (!posted) return reply
    const method = posted.fields.get('method') === 'POST' ? 'POST' : 'GET'
    const typed: ToolRequest = { method, url: posted.fields.get('url') ?? '', parameters: posted.fields.get('parameters') ?? '', withToken: posted.fields.get('with_token') === 'on' }
    // Signing with the owner's access token is as sensitive as showing it: a fresh password first.
    if (typed.withToken && !(await hasFreshPassword(context, request, reply, posted))) return reply
    const view = { csrfToken: posted.session.csrf, user: posted.user, app: posted.app, request: typed }
    try {
      const signed = await signWithTool(posted.acting, { app: posted.app, user: posted.user, ...typed })
      return sendPage(reply, 200, oauthToolPage({ ...view, signed }), { kind: 'self' })
    } catch (error) {
      if (!isFormMistake(error)) throw error
      return sendPage(reply, error.status, oauthToolPage({ ...view, message: error.publicMessage }), { kind: 'self' })
    }
  }

  async function postDelete(request: AppRequest, reply: FastifyReply) {
    const posted = await appPosting(request, reply, { sensitive: true })
    if (!posted) return reply
    await deleteApp(posted.acting, posted.app.id)
    return sendRedirect(reply, '/console')
  }

  async function postKeys(request: AppRequest, reply: FastifyReply) {
    const posted = await appPosting(request, reply, { sensitive: true })
    if (!posted) return reply
    // Without a grace period every token goes with the old pair; with one they stay (rotateAppKeys).
    const rotated = await rotateAppKeys(posted.acting, posted.app.id, graceOf(posted.fields, 'grace'))
    await markSecretToReveal(domain, posted.live, rotated)
    return sendRedirect(reply, `/console/apps/${rotated.id}`)
  }

  /** The grace period chosen in the select `name` (none when empty); the domain checks its bounds. */
  function graceOf(fields: Map<string, string>, name: string): { graceSeconds?: number } {
    const grace = fields.get(name) ?? ''
    return grace === '' ? {} : { graceSeconds: /^\d{1,7}$/.test(grace) ? Number(grace) : Number.NaN }
  }

  /** A refusal of the domain as the app's page shows it; anything else is thrown on. */
  function refusalShown(error: unknown): Shown {
    if (!(error instanceof ServiceError && error.status < 500)) throw error
    return { status: error.status, message: error.publicMessage }
  }

  /** A refusal of the domain (a suspended app has no owner token) shown on the app's page. */
  async function orMessage(reply: FastifyReply, posted: NonNullable<Awaited<ReturnType<typeof appPosting>>>, work: () => Promise<Shown>) {
    let shown: Shown
    try {
      shown = await work()
    } catch (error) {
      shown = refusalShown(error)
    }
    return show(reply, posted.session.csrf, posted.user, posted.app, shown)
  }

  async function postOwnerToken(request: AppRequest, reply: FastifyReply) {
    const posted = await appPosting(request, reply, { sensitive: true })
    if (!posted) return reply
    return orMessage(reply, posted, async () => {
      const { token } = await issueOwnerToken(posted.acting, posted.app.id)
      return {
        revealed: {
          heading: 'Your access token and secret',
          note: `They act as @${posted.user.screenName} with this app. Copy the secret now: this page is the only place it is shown.`,
          values: [
            { id: 'access_token', label: 'Access token', value: token.token },
            { id: 'access_token_secret', label: 'Access token secret', value: token.secret },
          ],
        },
      }
    })
  }

  async function postInvalidateOwnerToken(request: AppRequest, reply: FastifyReply) {
    const posted = await appPosting(request, reply)
    if (!posted) return reply
    return orMessage(reply, posted, async () => {
      await revokeAuthorization(posted.acting, posted.user.id, posted.app.id)
      return { message: 'Your access tokens for this app no longer work.' }
    })
  }

  async function postBearerToken(request: AppRequest, reply: FastifyReply) {
    const posted = await appPosting(request, reply, { sensitive: true })
    if (!posted) return reply
    return orMessage(reply, posted, async () => {
      const token = await handOutBearerToken(posted.acting, posted.app.id, request.ip)
      return {
        revealed: {
          heading: "The app's bearer token",
          note: 'It stays the same until you invalidate it. Keep it as secret as the consumer secret.',
          values: [{ id: 'bearer_token', label: 'Bearer token', value: token.token }],
        },
      }
    })
  }

  /** A client secret just made: shown on this answer only. */
  const secretShown = (change: ClientChange, message: string): Shown =>
    change.newSecret && change.client
      ? {
          revealed: {
            heading: 'Your OAuth 2.0 client secret',
            note: `Copy the client secret now: this page is the only place it is shown. If you lose it, regenerate it.${
              change.client.previousSecretExpiresAtMs === null ? '' : ` The previous secret keeps working until ${minute(change.client.previousSecretExpiresAtMs)}.`
            }`,
            values: [
              { id: 'oauth2_client_id', label: 'Client id', value: change.client.clientId },
              { id: 'oauth2_client_secret', label: 'Client secret', value: change.newSecret },
            ],
          },
        }
      : { message }

  async function postOAuth2(request: AppRequest, reply: FastifyReply) {
    const posted = await appPosting(request, reply, { sensitive: true })
    if (!posted) return reply
    return orMessage(reply, posted, async () => {
      const setting = posted.fields.get('oauth2') ?? ''
      if (!['off', 'confidential', 'public'].includes(setting)) throw new ServiceError(E.invalidParameter, { message: 'Choose Off, Confidential client or Public client.' })
      const change = await setOAuth2Client(posted.acting, { appId: posted.app.id, setting: setting as OAuth2Setting })
      return secretShown(change, change.client ? 'User authentication settings saved.' : 'OAuth 2.0 is off.')
    })
  }

  async function postClientSecret(request: AppRequest, reply: FastifyReply) {
    const posted = await appPosting(request, reply, { sensitive: true })
    if (!posted) return reply
    return orMessage(reply, posted, async () => {
      const change = await regenerateClientSecret(posted.acting, { appId: posted.app.id, ...graceOf(posted.fields, 'client_secret_grace') })
      if (!change) throw new ServiceError(E.invalidParameter, { message: 'Only a confidential client has a secret.' })
      return secretShown(change, '')
    })
  }

  async function postInvalidateBearerToken(request: AppRequest, reply: FastifyReply) {
    const posted = await appPosting(request, reply)
    if (!posted) return reply
    return orMessage(reply, posted, async () => {
      await revokeBearerToken(posted.acting, posted.app.id)
      return { message: 'The bearer token no longer works.' }
    })
  }

  return async (app: FastifyInstance) => {
    app.get('/console/apps/:app_id', getApp)
    app.post('/console/apps/:app_id', postEdit)
    app.post('/console/apps/:app_id/suspend', setSuspended(true))
    app.post('/console/apps/:app_id/unsuspend', setSuspended(false))
    app.get('/console/apps/:app_id/delete', getDelete)
    app.get('/console/apps/:app_id/failures', getFailures)
    app.get('/console/apps/:app_id/oauth-tool', getOAuthTool)
    app.post('/console/apps/:app_id/oauth-tool', postOAuthTool)
    app.post('/console/apps/:app_id/delete', postDelete)
    app.post('/console/apps/:app_id/keys', postKeys)
    app.post('/console/apps/:app_id/owner-token', postOwnerToken)
    app.post('/console/apps/:app_id/owner-token/invalidate', postInvalidateOwnerToken)
    app.post('/console/apps/:app_id/bearer-token', postBearerToken)
    app.post('/console/apps/:app_id/bearer-token/invalidate', postInvalidateBearerToken)
    app.post('/console/apps/:app_id/oauth2', postOAuth2)
    app.post('/console/apps/:app_id/oauth2/secret', postClientSecret)
  }
}
