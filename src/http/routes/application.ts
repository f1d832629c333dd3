// The service's own API (docs/api.md): the caller's rate-limit state, app-only or user context.
import type { FastifyInstance } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { identifyCaller } from '../../domain/identify-caller.ts'
import { rateLimitStatus, RATE_LIMIT_STATUS_LIMIT } from '../../domain/rate-limit-status.ts'
import { connectionOf } from '../../web/request-url.ts'
import { setLimitHeaders } from '../../web/plugins/rate-limit.ts'
import { requestInput } from '../request-input.ts'

export function applicationRoutes(deps: DomainDeps, publicUrl: URL | undefined) {
  return async (app: FastifyInstance) => {
    app.get<{ Querystring: { resources?: string } }>('/1.1/application/rate_limit_status.json', { config: { rateLimit: RATE_LIMIT_STATUS_LIMIT } }, async (request, reply) => {
      const { caller, limit } = await identifyCaller(deps, requestInput(request, publicUrl), RATE_LIMIT_STATUS_LIMIT)
      setLimitHeaders(reply, limit)
      const context = caller.context === 'app' ? { application: caller.app.consumerKey } : { access_token: caller.credential }
      const families = typeof request.query.resources === 'string' ? request.query.resources.split(',').map((s) => s.trim()) : undefined
      return reply.type('application/json; charset=utf-8').send({
        rate_limit_context: context,
        resources: await rateLimitStatus(deps, caller, connectionOf(request).ip, families, limit),
      })
    })
  }
}
