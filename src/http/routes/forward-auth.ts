// Forward auth: the endpoint nginx's auth_request, Caddy's forward_auth and Traefik's ForwardAuth
// call before they pass a request to the API they protect (docs/forward-auth.md).
import type { TLSSocket } from 'node:tls'
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify'
import type { DomainDeps } from '../../domain/deps.ts'
import { FORWARD_AUTH_LIMIT, identifyForwardedCaller, UncheckableRequest } from '../../domain/forward-auth.ts'
import type { Caller } from '../../domain/identify-caller.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { connectionOf } from '../../web/request-url.ts'
import { trustedProxies } from '../../web/trusted-proxies.ts'
import { forwardedRequestInput } from '../forward-auth-input.ts'

export const FORWARD_AUTH_PATH = '/latchkey/forward-auth'

/** What a refusal's body becomes, in a header: nginx's auth_request cannot read the body, only headers. */
const ERROR_HEADER = 'x-latchkey-error'
const PRINTABLE = /^[\x20-\x7e]*$/

/**
 * The headers a 2xx answer carries, for the proxy to pass to the API. All six are always sent, empty
 * when the credential has no such thing (an app-only token has no person): a proxy that copies a
 * header its answer lacks may otherwise write something else in its place (Caddy 2.6 writes its
 * placeholder's name), and an empty one overwrites whatever the client sent under that name.
 */
export function identityHeaders(caller: Caller): Record<string, string> {
  const person = caller.context === 'user' ? caller : undefined
  return {
    'x-latchkey-user-id': person?.user.id ?? '',
    'x-latchkey-screen-name': person?.user.screenName ?? '',
    'x-latchkey-app-id': caller.app.id,
    'x-latchkey-scopes': person?.scopes?.join(' ') ?? '',
    'x-latchkey-token-kind': caller.kind,
    'x-latchkey-access-level': caller.accessLevel,
  }
}

/** Every refusal's JSON body in X-Latchkey-Error too, whoever made it (this route, the address brake, the HTTPS rule). */
const errorInHeader: onSendHookHandler = (_request, reply, payload, done) => {
  if (reply.statusCode >= 400 && typeof payload === 'string' && PRINTABLE.test(payload)) reply.header(ERROR_HEADER, payload)
  done(null, payload)
}

/** The listener's own scheme: what the call came over, before any proxy header. */
const listenerScheme = (request: FastifyRequest) => ((request.raw.socket as TLSSocket | undefined)?.encrypted ? 'https' : 'http')

/**
 * `http.trustProxy`: who may call; `http.dev`: whether the client's request may have been plain HTTP
 * (in production it gets X's 403 code 92, as the API would; the call itself may come over plain HTTP).
 */
export function forwardAuthRoutes(deps: DomainDeps, http: { trustProxy: readonly string[]; dev: boolean }) {
  const isTrusted = http.trustProxy.length > 0 ? trustedProxies(http.trustProxy) : () => false
  return async (app: FastifyInstance) => {
    app.all(FORWARD_AUTH_PATH, { config: { rateLimit: FORWARD_AUTH_LIMIT }, onSend: errorInHeader }, async (request: FastifyRequest, reply: FastifyReply) => {
      // The peer itself, not X-Forwarded-For: only the proxy's own connection proves who calls.
      if (!isTrusted(request.raw.socket?.remoteAddress ?? '', 0)) {
        throw new ServiceError(E.forwardAuthUntrusted, { detail: 'forward auth called from an address not in --trust-proxy' })
      }
      const input = {
        ...forwardedRequestInput(request.headers, { method: request.method, scheme: listenerScheme(request), host: request.headers.host }),
        endpoint: FORWARD_AUTH_PATH,
        clientAddress: connectionOf(request).ip,
        addressBudget: request.routeOptions.config.addressBudget,
      }
      if (!http.dev && !input.isSecure) throw new ServiceError(E.sslRequired, { detail: 'forward auth: the client used plain HTTP' })
      try {
        const { caller } = await identifyForwardedCaller(deps, input)
        return await reply.code(204).headers(identityHeaders(caller)).send()
      } catch (error) {
        if (error instanceof UncheckableRequest) reply.header('x-latchkey-reason', error.detail)
        throw error
      }
    })
  }
}
