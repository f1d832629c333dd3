// service-spec §4.6, §4.7 and RFC 7662: app-only bearer tokens and token introspection.
import compress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { issueOrReuseBearerToken, BEARER_TOKEN_LIMIT } from '../../domain/oauth2/bearer-token.ts'
import { introspectToken, INTROSPECT_LIMIT } from '../../domain/introspect.ts'
import { invalidateBearerToken, INVALIDATE_BEARER_TOKEN_LIMIT } from '../../domain/oauth2/invalidate-bearer-token.ts'
import { setLimitHeaders } from '../../web/plugins/rate-limit.ts'
import { requestInput } from '../request-input.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

export function oauth2Routes(deps: DomainDeps, publicUrl: URL | undefined) {
  return async (app: FastifyInstance) => {
    // The token answer is gzip-encoded for clients that ask (spec §4.6), however small it is.
    await app.register(compress, { global: true, threshold: 0, encodings: ['gzip'] })

    app.post('/oauth2/token', { config: { rateLimit: BEARER_TOKEN_LIMIT } }, async (request, reply) => {
      const { bearerToken, limit } = await issueOrReuseBearerToken(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      return reply.type(JSON_TYPE).send({ token_type: 'bearer', access_token: bearerToken.token })
    })

    app.post('/oauth2/invalidate_token', { config: { rateLimit: INVALIDATE_BEARER_TOKEN_LIMIT } }, async (request, reply) => {
      const { accessToken, limit } = await invalidateBearerToken(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      return reply.type(JSON_TYPE).send({ access_token: accessToken })
    })

    app.post('/oauth2/introspect', { config: { rateLimit: INTROSPECT_LIMIT } }, async (request, reply) => {
      const { answer, limit } = await introspectToken(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      return reply.type(JSON_TYPE).send(answer)
    })
  }
}
