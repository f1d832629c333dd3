// The service's own API (docs/api.md): the caller's rate-limit state, app-only or user context.
import type { FastifyInstance } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { identifyCaller } from '../../domain/identify-caller.ts'
import { rateLimitStatus } from '../../domain/rate-limit-status.ts'
import { connectionOf } from '../request-url.ts'
import { requestInput } from '../request-input.ts'

export function applicationRoutes(deps: DomainDeps, publicUrl: URL | undefined) {
  return async (app: FastifyInstance) => {
    app.get<{ Querystring: { resources?: string } }>('/1.1/application/rate_limit_status.json', { config: { rateLimit: '/application/rate_limit_status' } }, async (request, reply) => {
      const caller = await identifyCaller(deps, requestInput(request, reply, publicUrl))
      const context = caller.context === 'app' ? { application: caller.app.consumerKey } : { access_token: caller.credential }
      const families = typeof request.query.resources === 'string' ? request.query.resources.split(',').map((s) => s.trim()) : undefined
      return reply.type('application/json; charset=utf-8').send({
        rate_limit_context: context,
        resources: await rateLimitStatus(deps, caller, connectionOf(request).ip, families),
      })
    })
  }
}
