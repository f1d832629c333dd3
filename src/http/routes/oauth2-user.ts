// twitter-behaviour §9: OAuth 2.0 user context's API endpoints (the browser step is the pages').
import type { FastifyInstance } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { revokeUserToken, REVOKE_LIMIT } from '../../domain/oauth2-user/revoke.ts'
import { issueUserToken, USER_TOKEN_LIMIT } from '../../domain/oauth2-user/token.ts'
import { currentUser, USERS_ME_LIMIT } from '../../domain/users-me.ts'
import { serviceErrorOf, type ErrorOptions } from '../../web/json-errors.ts'
import { sendOAuth2Error, sendProblem } from '../oauth2-errors.ts'
import { setLimitHeaders } from '../../web/plugins/rate-limit.ts'
import { requestInput } from '../request-input.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

export function oauth2UserRoutes(deps: DomainDeps, publicUrl: URL | undefined, errors: ErrorOptions) {
  return async (app: FastifyInstance) => {
    app.setErrorHandler((error, request, reply) => {
      const serviceError = serviceErrorOf(error, request, reply, errors)
      return request.routeOptions.url?.startsWith('/2/oauth2/') ? sendOAuth2Error(reply, serviceError) : sendProblem(reply, serviceError)
    })

    app.post('/2/oauth2/token', { config: { rateLimit: USER_TOKEN_LIMIT } }, async (request, reply) => {
      const { answer, limit } = await issueUserToken(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      return reply.header('cache-control', 'no-store').type(JSON_TYPE).send(answer)
    })

    app.post('/2/oauth2/revoke', { config: { rateLimit: REVOKE_LIMIT } }, async (request, reply) => {
      const { revoked, limit } = await revokeUserToken(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      return reply.type(JSON_TYPE).send({ revoked })
    })

    // X accepts OAuth 2.0 user context and OAuth 1.0a user context here.
    app.get('/2/users/me', { config: { rateLimit: USERS_ME_LIMIT } }, async (request, reply) => {
      const { user, limit } = await currentUser(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      return reply.type(JSON_TYPE).send({ data: { id: user.id, name: user.name, username: user.screenName } })
    })
  }
}
