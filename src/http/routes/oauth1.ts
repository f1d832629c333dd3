// service-spec §4.1, §4.4, §4.5: the OAuth 1.0a token endpoints.
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { exchangeVerifier } from '../../domain/oauth1/exchange-verifier.ts'
import { invalidateAccessToken } from '../../domain/oauth1/invalidate-access-token.ts'
import { issueRequestToken } from '../../domain/oauth1/request-token.ts'
import { serializeForm } from '../../protocol/oauth1/form.ts'
import { requestInput } from '../request-input.ts'

/** Token responses are form-encoded: every OAuth 1.0a client parses them as a query string. */
function sendForm(reply: FastifyReply, pairs: Array<[string, string]>): FastifyReply {
  return reply.type('application/x-www-form-urlencoded').send(serializeForm(pairs))
}

export function oauth1Routes(deps: DomainDeps, publicUrl: URL | undefined) {
  return async (app: FastifyInstance) => {
    app.post('/oauth/request_token', { config: { rateLimit: '/oauth/request_token' } }, async (request, reply) => {
      const token = await issueRequestToken(deps, requestInput(request, reply, publicUrl))
      return sendForm(reply, [
        ['oauth_token', token.token],
        ['oauth_token_secret', token.secret],
        ['oauth_callback_confirmed', 'true'],
      ])
    })

    app.post('/oauth/access_token', { config: { rateLimit: '/oauth/access_token' } }, async (request, reply) => {
      const { accessToken, user } = await exchangeVerifier(deps, requestInput(request, reply, publicUrl))
      return sendForm(reply, [
        ['oauth_token', accessToken.token],
        ['oauth_token_secret', accessToken.secret],
        ['user_id', user.id],
        ['screen_name', user.screenName],
      ])
    })

    // Twitter's pages show the path with and without 1.1 and .json: all four are served.
    for (const path of ['/1.1/oauth/invalidate_token', '/1.1/oauth/invalidate_token.json', '/oauth/invalidate_token', '/oauth/invalidate_token.json']) {
      app.post(path, { config: { rateLimit: '/oauth/invalidate_token' } }, async (request, reply) => {
        const { accessToken } = await invalidateAccessToken(deps, requestInput(request, reply, publicUrl))
        return reply.type('application/json; charset=utf-8').send({ access_token: accessToken })
      })
    }
  }
}
