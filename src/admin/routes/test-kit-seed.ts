import type { FastifyInstance } from 'fastify'
import { applySeed } from '../../domain/test-kit/seed.ts'
import { json, responses } from '../schemas.ts'

const ANY_OBJECT = { type: 'object', additionalProperties: true }

/**
 * The test mode's control route for seeding (docs/test-kit.md): registered by the test mode only,
 * never by buildAdminApp. A bad seed is a 400 problem whose `errors` name each bad field by its
 * path in the seed (`apps[2].callbacks[0]`), and nothing is written.
 */
export async function testSeedRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: unknown }>(
    '/admin/v1/test/seed',
    {
      schema: {
        operationId: 'applySeed',
        tags: ['test'],
        summary: 'Apply a seed file (docs/seed.schema.json): people, apps and ready credentials; applying it again changes nothing',
        body: { ...ANY_OBJECT, description: 'A seed (docs/seed.schema.json).' },
        response: responses({ 200: json('Every person, app and credential of the seed, with all its values.', ANY_OBJECT) }, 400),
      },
    },
    async (request) => applySeed(request.adminDomain, request.body),
  )
}
