// twitter-behaviour §9: OAuth 2.0 user context's API endpoints (the browser step is the pages').
import type { FastifyInstance } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { verifySignedRequest } from '../../domain/oauth1/verify-signed-request.ts'
import { revokeUserToken, REVOKE_LIMIT } from '../../domain/oauth2-user/revoke.ts'
import { issueUserToken, USER_TOKEN_LIMIT } from '../../domain/oauth2-user/token.ts'
import { verifyUserBearer } from '../../domain/oauth2-user/user-token.ts'
import { chargeCall } from '../../domain/rate-limits.ts'
import type { RateLimitedResource } from '../../domain/rate-limit-table.ts'
import { parseBearerHeader } from '../../protocol/oauth2/bearer-token.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { ErrorOptions } from '../../web/json-errors.ts'
import { installOAuth2Errors } from '../oauth2-errors.ts'
import { installV2Problems } from '../v2-problems.ts'
import { setLimitHeaders } from '../../web/plugins/rate-limit.ts'
import { requestInput } from '../request-input.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * An OAuth 1.0a refusal as API v2 gives it: a header that cannot be read (v1.1's 400 code 215) is,
 * like any other failed authentication there, X's v2 401; limits and outages keep their status.
 */
function asV2Refusal(error: unknown): never {
  if (error instanceof ServiceError && error.status === 400) throw new ServiceError(E.v2Unauthorized, { detail: error.detail ?? error.publicMessage })
  throw error
}


/** The limit /2/users/me counts against, whichever credential it is called with. */
const USERS_ME_LIMIT = '/2/users/me' satisfies RateLimitedResource

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
      const input = requestInput(request, publicUrl)
      let user
      if (parseBearerHeader(input.authorization) !== undefined) {
        const holder = await verifyUserBearer(deps, input.authorization)
        const { limit } = await chargeCall(deps, USERS_ME_LIMIT, { appId: holder.app.id, userId: holder.user.id })
        setLimitHeaders(reply, limit)
        user = holder.user
      } else {
        const verified = await verifySignedRequest(deps, input, { tokenKind: 'access', charge: USERS_ME_LIMIT }).catch(asV2Refusal)
        setLimitHeaders(reply, verified.limit)
        user = verified.user
      }
      return reply.type(JSON_TYPE).send({ data: { id: user.id, name: user.name, username: user.screenName } })
    })
  }
}
