import type { FastifyInstance, FastifyReply } from 'fastify'
import { oauth2ErrorCode } from '../errors/catalogue.ts'
import type { ServiceError } from '../errors/service-error.ts'
import { installContextErrors, type ErrorOptions } from '../web/json-errors.ts'

// The error renderer of OAuth 2.0 user context's token endpoints (/2/oauth2/*), which is not the
// v1.1 `{"errors"}` shape (twitter-behaviour §9): RFC 6749 §5.2 bodies. The error is a ServiceError,
// whose catalogue entry names its RFC code.

const JSON_TYPE = 'application/json; charset=utf-8'

/** `{"error","error_description"}`: the catalogue's RFC code, or one fitting the status for a refusal shared with the rest of the API. */
export function sendOAuth2Error(reply: FastifyReply, error: ServiceError): FastifyReply {
  reply.header('cache-control', 'no-store')
  // RFC 6749 §5.2: a 401 names the authentication scheme the client should use.
  if (error.status === 401) reply.header('www-authenticate', 'Basic realm="Latchkey"')
  return reply.code(error.status).type(JSON_TYPE).send({ error: oauth2ErrorCode(error), error_description: error.publicMessage })
}

/** The one error handler of the context that holds the /2/oauth2/* routes. */
export function installOAuth2Errors(app: FastifyInstance, options: ErrorOptions): void {
  installContextErrors(app, 'oauth2', sendOAuth2Error, options)
}
