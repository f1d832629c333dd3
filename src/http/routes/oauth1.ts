// service-spec §4.1, §4.4, §4.5: the OAuth 1.0a token endpoints.
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { exchangeVerifier, ACCESS_TOKEN_LIMIT } from '../../domain/oauth1/exchange-verifier.ts'
import { invalidateAccessToken, INVALIDATE_ACCESS_TOKEN_LIMIT } from '../../domain/oauth1/invalidate-access-token.ts'
import { issueRequestToken, REQUEST_TOKEN_LIMIT } from '../../domain/oauth1/request-token.ts'
import { serializeForm } from '../../protocol/form.ts'
import { setLimitHeaders } from '../../web/plugins/rate-limit.ts'
import { requestInput } from '../request-input.ts'

/** Token responses are form-encoded: every OAuth 1.0a client parses them as a query string. */
function sendForm(reply: FastifyReply, pairs: Array<[string, string]>): FastifyReply {
  return reply.type('application/x-www-form-urlencoded').send(serializeForm(pairs))
}

export function oauth1Routes(deps: DomainDeps, publicUrl: URL | undefined) {
  return async (app: FastifyInstance) => {
    app.post('/oauth/request_token', { config: { rateLimit: REQUEST_TOKEN_LIMIT } }, async (request, reply) => {
      const { requestToken, limit } = await issueRequestToken(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      return sendForm(reply, [
        ['oauth_token', requestToken.token],
        ['oauth_token_secret', requestToken.secret],
        ['oauth_callback_confirmed', 'true'],
      ])
    })

    app.post('/oauth/access_token', { config: { rateLimit: ACCESS_TOKEN_LIMIT } }, async (request, reply) => {
      const { accessToken, user, limit } = await exchangeVerifier(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      return sendForm(reply, [
        ['oauth_token', accessToken.token],
        ['oauth_token_secret', accessToken.secret],
        ['user_id', user.id],
        ['screen_name', user.screenName],
      ])
    })

    // Twitter's pages show the path with and without 1.1 and .json: all four are served.
    for (const path of ['/1.1/oauth/invalidate_token', '/1.1/oauth/invalidate_token.json', '/oauth/invalidate_token', '/oauth/invalidate_token.json']) {
      app.post(path, { config: { rateLimit: INVALIDATE_ACCESS_TOKEN_LIMIT } }, async (request, reply) => {
        const { accessToken, limit } = await invalidateAccessToken(deps, requestInput(request, publicUrl))
        setLimitHeaders(reply, limit)
        return reply.type('application/json; charset=utf-8').send({ access_token: accessToken })
      })
    }
  }
}
