// twitter-behaviour §9: OAuth 2.0 user context's API endpoints (the browser step is the pages').
import type { FastifyInstance } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { revokeUserToken, REVOKE_LIMIT } from '../../domain/oauth2-user/revoke.ts'
import { issueUserToken, USER_TOKEN_LIMIT } from '../../domain/oauth2-user/token.ts'
import { currentUser, USERS_ME_LIMIT } from '../../domain/users-me.ts'
import type { ErrorOptions } from '../../web/json-errors.ts'
import { installOAuth2Errors } from '../oauth2-errors.ts'
import { installV2Problems } from '../v2-problems.ts'
import { setLimitHeaders } from '../../web/plugins/rate-limit.ts'
import { requestInput } from '../request-input.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

/** The token endpoints, a context whose refusals are RFC 6749's (src/http/oauth2-errors.ts). */
export function oauth2UserRoutes(deps: DomainDeps, publicUrl: URL | undefined, errors: ErrorOptions) {
  return async (app: FastifyInstance) => {
    installOAuth2Errors(app, errors)

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
  }
}

/** API v2's /2/users/me, a context whose refusals are X's v2 problems (src/http/v2-problems.ts). */
export function usersMeRoutes(deps: DomainDeps, publicUrl: URL | undefined, errors: ErrorOptions) {
  return async (app: FastifyInstance) => {
    installV2Problems(app, errors)

    // X accepts OAuth 2.0 user context and OAuth 1.0a user context here.
    app.get('/2/users/me', { config: { rateLimit: USERS_ME_LIMIT } }, async (request, reply) => {
      const { user, limit } = await currentUser(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      return reply.type(JSON_TYPE).send({ data: { id: user.id, name: user.name, username: user.screenName } })
    })
  }
}
