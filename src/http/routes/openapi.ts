import type { FastifyInstance } from 'fastify'
import { publicOpenApi } from '../openapi-public.ts'

/** GET /openapi.json: what the public endpoints take and answer. */
export function openApiRoutes() {
  const document = JSON.stringify(publicOpenApi())
  return async (app: FastifyInstance) => {
    app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(document))
  }
}
