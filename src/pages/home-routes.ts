// The front door (issue 32): what this service is, and where to go; the docs as plain text.
import { readdirSync, readFileSync } from 'node:fs'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { HomeSettings } from '../app-deps.ts'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { publicOrigin } from '../http/request-url.ts'
import { sendPage } from './reply.ts'
import { docsIndexPage, homePage } from './views/home.ts'

/** The docs folder of this package: two folders up from this file in src/ and in dist/ alike. */
const DOCS = new URL('../../docs/', import.meta.url)

function docNames(): string[] {
  try {
    return readdirSync(DOCS).filter((name) => name.endsWith('.md')).sort()
  } catch {
    return []
  }
}

export function homeRoutes(settings: HomeSettings, options: { dev: boolean; publicUrl: URL | undefined }) {
  const docs = docNames()
  return async (app: FastifyInstance) => {
    app.get('/', async (request: FastifyRequest, reply: FastifyReply) => {
      const origin = publicOrigin(request, options.publicUrl)
      const page = homePage({
        origin: `${origin.scheme}://${origin.host}`,
        adminUrl: settings.adminUrl(),
        dev: options.dev,
        demo: options.dev ? settings.demo() : undefined,
        docs,
      })
      return sendPage(reply, 200, page)
    })
    app.get('/docs/', async (_request, reply) => sendPage(reply, 200, docsIndexPage(docs)))
    app.get<{ Params: { name: string } }>('/docs/:name', async (request, reply) => {
      if (!docs.includes(request.params.name)) throw new ServiceError(E.pageNotFound)
      const text = readFileSync(new URL(request.params.name, DOCS), 'utf8')
      return reply.type('text/plain; charset=utf-8').send(text)
    })
  }
}
