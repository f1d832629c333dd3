import type { FastifyInstance, FastifyReply } from 'fastify'
import type { ServiceError } from '../errors/service-error.ts'
import { installContextErrors, type ErrorOptions } from '../web/json-errors.ts'

// The error renderer of X's API v2 routes (/2/users/*), which is not the v1.1 `{"errors"}` shape
// (twitter-behaviour §9): X's v2 problem documents. The error is a ServiceError, whose catalogue
// entry names its problem.

const JSON_TYPE = 'application/json; charset=utf-8'

/** X's v2 problem document: `{"title","type","status","detail"}`; any 401 is X's plain one. */
export function sendV2Problem(reply: FastifyReply, error: ServiceError): FastifyReply {
  const isUnauthorized = error.status === 401
  const title = isUnauthorized ? 'Unauthorized' : (error.problem?.title ?? error.publicMessage)
  const type = isUnauthorized ? 'about:blank' : (error.problem?.type ?? 'about:blank')
  const detail = isUnauthorized ? 'Unauthorized' : error.publicMessage
  reply.header('cache-control', 'no-store')
  if (isUnauthorized) reply.header('www-authenticate', 'Bearer realm="Latchkey"')
  return reply.code(error.status).type(JSON_TYPE).send({ title, type, status: error.status, detail })
}

/** The one error handler of the context that holds the API v2 routes. */
export function installV2Problems(app: FastifyInstance, options: ErrorOptions): void {
  installContextErrors(app, 'v2', sendV2Problem, options)
}
