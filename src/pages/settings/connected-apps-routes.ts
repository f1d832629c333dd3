import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { personActor, withAuditActor } from '../../domain/actor.ts'
import { revokeAuthorization } from '../../domain/admin/people.ts'
import { connectedApps } from '../../domain/console/connected-apps.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { personOrSignIn, personPosting, type PageContext } from '../console/context.ts'
import { sendPage, sendRedirect } from '../reply.ts'
import { connectedAppsPage } from '../views/connected-apps.ts'

const PATH = '/settings/connected_apps'

export function connectedAppsRoutes(context: PageContext) {
  const { domain } = context

  async function getPage(request: FastifyRequest, reply: FastifyReply) {
    const person = await personOrSignIn(context, request, reply, PATH)
    if (!person) return reply
    const apps = await connectedApps(domain, person.user.id)
    return sendPage(reply, 200, connectedAppsPage({ csrfToken: person.session.csrf, user: person.user, apps }), { kind: 'self' })
  }

  /** Revokes every access token of the person for the app; an app they never authorized is a 404. */
  async function postRevoke(request: FastifyRequest, reply: FastifyReply) {
    const person = await personPosting(context, request, reply)
    if (!person) return reply
    const appId = person.fields.get('revoke') ?? ''
    if (!/^\d{1,20}$/.test(appId)) throw new ServiceError(E.notFound, { message: 'no such authorization' })
    await revokeAuthorization(withAuditActor(domain, personActor(person.user.id)), person.user.id, appId)
    return sendRedirect(reply, PATH)
  }

  return async (app: FastifyInstance) => {
    app.get(PATH, getPage)
    app.post(`${PATH}/revoke`, postRevoke)
  }
}
