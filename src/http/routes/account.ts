// The service's own API (docs/api.md): the probe clients use to check a user-context token.
import type { FastifyInstance } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { verifyUserContext, VERIFY_CREDENTIALS_LIMIT } from '../../domain/oauth1/verify-user-context.ts'
import { setLimitHeaders } from '../../web/plugins/rate-limit.ts'
import { requestInput } from '../request-input.ts'

export function accountRoutes(deps: DomainDeps, publicUrl: URL | undefined) {
  return async (app: FastifyInstance) => {
    app.get('/1.1/account/verify_credentials.json', { config: { rateLimit: VERIFY_CREDENTIALS_LIMIT } }, async (request, reply) => {
      const { user, accessToken, limit } = await verifyUserContext(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      reply.header('x-access-level', accessToken.accessLevel)
      return reply.type('application/json; charset=utf-8').send({
        id: Number(user.id),
        id_str: user.id,
        screen_name: user.screenName,
        name: user.name,
      })
    })
  }
}
