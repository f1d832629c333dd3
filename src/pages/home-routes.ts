// The front door (issue 32): what this service is, and where to go.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { HomeSettings } from '../app-deps.ts'
import { publicOrigin } from '../web/request-url.ts'
import { sendPage } from './reply.ts'
import { docsRoutes } from './docs-routes.ts'
import { homePage } from './views/home.ts'

export function homeRoutes(settings: HomeSettings, options: { dev: boolean; publicUrl: URL | undefined }) {
  return async (app: FastifyInstance) => {
    app.get('/', async (request: FastifyRequest, reply: FastifyReply) => {
      const origin = publicOrigin(request, options.publicUrl)
      const page = homePage({
        origin: `${origin.scheme}://${origin.host}`,
        adminUrl: settings.adminUrl(),
        dev: options.dev,
        demo: options.dev ? settings.demo() : undefined,
      })
      return sendPage(reply, 200, page)
    })
    await app.register(docsRoutes())
  }
}
