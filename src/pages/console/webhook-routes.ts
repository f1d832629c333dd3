import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { personActor, withAuditActor } from '../../domain/actor.ts'
import { ownedApp } from '../../domain/console/owned-apps.ts'
import { addWebhook, findWebhook, removeWebhook, verifyWebhook, webhookStatus } from '../../domain/revocations/webhooks.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { AppRecord, UserRecord } from '../../storage/records.ts'
import { sendPage, sendRedirect } from '../reply.ts'
import type { Revealed } from '../views/console-apps.ts'
import { webhooksPage } from '../views/console-webhooks.ts'
import { personOrSignIn, personPosting, type PageContext } from './context.ts'
import { hasFreshPassword } from './sudo.ts'

type WebhookRequest = FastifyRequest<{ Params: { app_id: string; webhook_id?: string } }>

interface Shown {
  status?: number
  message?: string | undefined
  revealed?: Revealed | undefined
  url?: string | undefined
}

/** The developer console's page of an app's own revocation webhooks (its resource servers). */
export function consoleWebhookRoutes(context: PageContext) {
  const { domain } = context

  async function show(reply: FastifyReply, csrfToken: string, user: UserRecord, app: AppRecord, shown: Shown = {}) {
    const endpoints = (await webhookStatus(domain)).filter((endpoint) => endpoint.appId === app.id)
    return sendPage(reply, shown.status ?? 200, webhooksPage({ csrfToken, user, app, endpoints, ...shown }), { kind: 'self' })
  }

  async function getWebhooks(request: WebhookRequest, reply: FastifyReply) {
    const person = await personOrSignIn(context, request, reply, `/console/apps/${request.params.app_id}/webhooks`)
    if (!person) return reply
    const app = await ownedApp(domain, person.user.id, request.params.app_id)
    return show(reply, person.session.csrf, person.user, app)
  }

  /** A POST about one of the person's apps (404 unless theirs); with `sensitive`, a fresh password too. */
  async function posting(request: WebhookRequest, reply: FastifyReply, options: { sensitive?: boolean } = {}) {
    const person = await personPosting(context, request, reply)
    if (!person) return undefined
    const app = await ownedApp(domain, person.user.id, request.params.app_id)
    if (options.sensitive && !(await hasFreshPassword(context, request, reply, person))) return undefined
    const webhookId = request.params.webhook_id
    // Another app's endpoint (or an operator's) is no endpoint of this page: 404, as for an app not yours.
    if (webhookId !== undefined && (await findWebhook(domain, webhookId)).appId !== app.id) throw new ServiceError(E.notFound, { message: `no webhook with id ${webhookId}` })
    return { ...person, app, acting: withAuditActor(domain, personActor(person.user.id)) }
  }

  /** A refusal of the domain (a bad URL, a failed CRC challenge) shown on the page; anything else thrown on. */
  async function orMessage(reply: FastifyReply, posted: NonNullable<Awaited<ReturnType<typeof posting>>>, work: () => Promise<Shown>) {
    let shown: Shown
    try {
      shown = await work()
    } catch (error) {
      if (!(error instanceof ServiceError && error.status < 500 && error.status !== 404)) throw error
      shown = { status: error.status, message: error.publicMessage, url: posted.fields.get('url') }
    }
    return show(reply, posted.session.csrf, posted.user, posted.app, shown)
  }

  async function postAdd(request: WebhookRequest, reply: FastifyReply) {
    // The answer shows a signing secret: a fresh password first, as for the app's other secrets.
    const posted = await posting(request, reply, { sensitive: true })
    if (!posted) return reply
    return orMessage(reply, posted, async () => {
      const { endpoint, secret } = await addWebhook(posted.acting, { url: posted.fields.get('url') ?? '', appId: posted.app.id })
      return {
        revealed: {
          heading: 'The webhook signing secret',
          note: `Give it to the receiver at ${endpoint.url} now: this page is the only place it is shown. Then send the CRC challenge.`,
          values: [{ id: 'webhook_secret', label: 'Signing secret', value: secret }],
        },
      }
    })
  }

  async function postVerify(request: WebhookRequest, reply: FastifyReply) {
    const posted = await posting(request, reply)
    if (!posted) return reply
    return orMessage(reply, posted, async () => {
      const endpoint = await verifyWebhook(posted.acting, request.params.webhook_id!)
      return { message: `${endpoint.url} answered the CRC challenge: events are sent to it.` }
    })
  }

  async function postRemove(request: WebhookRequest, reply: FastifyReply) {
    const posted = await posting(request, reply)
    if (!posted) return reply
    await removeWebhook(posted.acting, request.params.webhook_id!)
    return sendRedirect(reply, `/console/apps/${posted.app.id}/webhooks`)
  }

  return async (app: FastifyInstance) => {
    app.get('/console/apps/:app_id/webhooks', getWebhooks)
    app.post('/console/apps/:app_id/webhooks', postAdd)
    app.post('/console/apps/:app_id/webhooks/:webhook_id/verify', postVerify)
    app.post('/console/apps/:app_id/webhooks/:webhook_id/remove', postRemove)
  }
}
