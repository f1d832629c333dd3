import type { FastifyReply } from 'fastify'
import type { ServiceError } from '../errors/service-error.ts'

// The error bodies of OAuth 2.0 user context's endpoints, which are not the v1.1 `{"errors"}` shape
// (twitter-behaviour §9): RFC 6749 §5.2 bodies at /2/oauth2/*, API v2 problems at /2/users/*.

const JSON_TYPE = 'application/json; charset=utf-8'

/** `{"error","error_description"}`: the catalogue's RFC code, or one fitting the status for a refusal shared with the rest of the API. */
export function sendOAuth2Error(reply: FastifyReply, error: ServiceError): FastifyReply {
  const code = error.oauth2 ?? (error.status >= 500 ? 'server_error' : error.status === 429 ? 'too_many_requests' : 'invalid_request')
  reply.header('cache-control', 'no-store')
  // RFC 6749 §5.2: a 401 names the authentication scheme the client should use.
  if (error.status === 401) reply.header('www-authenticate', 'Basic realm="Latchkey"')
  return reply.code(error.status).type(JSON_TYPE).send({ error: code, error_description: error.publicMessage })
}

/** X's v2 problem document: `{"title","type","status","detail"}`; any 401 is X's plain one. */
export function sendProblem(reply: FastifyReply, error: ServiceError): FastifyReply {
  const isUnauthorized = error.status === 401
  const title = isUnauthorized ? 'Unauthorized' : (error.problem?.title ?? error.publicMessage)
  const type = isUnauthorized ? 'about:blank' : (error.problem?.type ?? 'about:blank')
  const detail = isUnauthorized ? 'Unauthorized' : error.publicMessage
  reply.header('cache-control', 'no-store')
  if (isUnauthorized) reply.header('www-authenticate', 'Bearer realm="Latchkey"')
  return reply.code(error.status).type(JSON_TYPE).send({ title, type, status: error.status, detail })
}
