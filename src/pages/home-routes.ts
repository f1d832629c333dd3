// The front door (issue 32): what this service is, and where to go.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { publicOrigin } from '../web/request-url.ts'
import { sendPage } from './reply.ts'
import { docsRoutes } from './docs-routes.ts'
import { homePage, type HomeDemo } from './views/home.ts'

export interface HomeSettings {
  /** Development only: the demo the first start made (src/composition/dev-demo.ts), shown again; undefined if none. */
  demo(): HomeDemo | undefined
  /** The admin API's base URL once its listener listens (undefined when it has none). */
  adminUrl(): string | undefined
}

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
