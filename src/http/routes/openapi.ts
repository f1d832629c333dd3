import type { FastifyInstance } from 'fastify'
import { publicOpenApi } from '../openapi-public.ts'
import { publicOrigin } from '../../web/request-url.ts'

/**
 * GET /openapi.json: what the public endpoints take and answer, at the address the reader reached:
 * `--public-url`, or the request's own origin (behind a trusted proxy, as the proxy says).
 */
export function openApiRoutes(publicUrl: URL | undefined) {
  return async (app: FastifyInstance) => {
    app.get('/openapi.json', async (request, reply) => {
      const origin = publicOrigin(request, publicUrl)
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(publicOpenApi(`${origin.scheme}://${origin.host}`)))
    })
  }
}
