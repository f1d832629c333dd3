import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { wireName } from '../domain/vocabulary.ts'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { answerOnSocket, clientErrorDef } from '../web/bounds.ts'
import { SealError, StorageUnavailableError } from '../storage/errors.ts'
import { PROBLEM_TYPES, ProblemError, sendProblem, type FieldError, type Problem } from './problem.ts'

/** Fastify's refusals: status, problem type, and a detail of ours where Fastify's does not say what to send. */
const FASTIFY_CODES: Record<string, [number, string, string?]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, PROBLEM_TYPES.unsupportedMediaType, 'The body must be JSON (Content-Type: application/json).'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, PROBLEM_TYPES.tooLarge],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, PROBLEM_TYPES.badRequest],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, PROBLEM_TYPES.badRequest],
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: PROBLEM_TYPES.validation,
  401: PROBLEM_TYPES.unauthorized,
  404: PROBLEM_TYPES.notFound,
  405: PROBLEM_TYPES.methodNotAllowed,
  409: PROBLEM_TYPES.conflict,
  413: PROBLEM_TYPES.tooLarge,
  414: PROBLEM_TYPES.tooLarge,
  429: PROBLEM_TYPES.rateLimited,
  431: PROBLEM_TYPES.tooLarge,
}

/** One ajv error as a field error: the field the path names, or the unknown or missing one. */
function fieldError(where: FieldError['in'], error: { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string }): FieldError {
  const path = error.instancePath.replace(/^\//, '')
  const named = (error.params.additionalProperty ?? error.params.missingProperty) as string | undefined
  const field = [path, named].filter(Boolean).join('/') || '(body)'
  const detail = error.keyword === 'additionalProperties' ? 'is not a field of this request' : (error.message ?? 'is invalid')
  return { in: where, field, detail }
}

const WHERE: Record<string, FieldError['in']> = { body: 'body', querystring: 'query', params: 'path' }

/** Anything thrown, as the problem document the client sees; a 5xx never shows its cause. */
export function toProblem(error: unknown): Problem {
  if (error instanceof ProblemError) return error.problem
  if (error instanceof ServiceError) return fromServiceError(error)
  if (error instanceof SealError) return fromServiceError(new ServiceError(E.credentialUnreadable, { cause: error }))
  if (error instanceof StorageUnavailableError) {
    // Which of them, and where, is the operator's log's to say (the cause names addresses).
    return new ProblemError(503, PROBLEM_TYPES.unavailable, 'The database or Redis cannot be reached; try again shortly.').problem
  }
  const fastifyError = error as FastifyError
  if (fastifyError.validation) {
    const where = WHERE[fastifyError.validationContext ?? 'body'] ?? 'body'
    const errors = fastifyError.validation.map((e) => fieldError(where, e as Parameters<typeof fieldError>[1]))
    return new ProblemError(400, PROBLEM_TYPES.validation, 'The request has invalid fields.', errors).problem
  }
  const known = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined
  if (known) return new ProblemError(known[0], known[1], known[2] ?? fastifyError.message).problem
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new ProblemError(fastifyError.statusCode, TYPE_BY_STATUS[fastifyError.statusCode] ?? PROBLEM_TYPES.badRequest, 'The request is malformed.').problem
  }
  return new ProblemError(500, PROBLEM_TYPES.internal, 'Internal error.').problem
}

function fromServiceError(error: ServiceError): Problem {
  if (error.status >= 500) {
    const type = error.status === 503 ? PROBLEM_TYPES.unavailable : PROBLEM_TYPES.internal
    return new ProblemError(error.status, type, error.status === 503 ? 'Over capacity; try again shortly.' : 'Internal error.').problem
  }
  const errors = error.fields.length === 0 ? undefined : error.fields.map((bad) => ({ in: 'body' as const, field: wireName(bad.field), detail: bad.message }))
  return new ProblemError(error.status, TYPE_BY_STATUS[error.status] ?? PROBLEM_TYPES.badRequest, error.publicMessage, errors).problem
}

export function installProblemErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error)
    if (problem.status >= 500) request.log.error({ err: error, reqId: request.id }, 'admin request failed')
    return sendProblem(reply, problem)
  })
  app.setNotFoundHandler((_request, reply) =>
    sendProblem(reply, new ProblemError(404, PROBLEM_TYPES.notFound, 'No such admin resource.').problem),
  )
}

/**
 * What Node's HTTP parser refuses before Fastify sees a request (garbage, a control character in a
 * header, headers too large, a timeout), as a problem document written on the socket, which is then closed.
 */
export function adminClientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  const def = clientErrorDef(error)
  const type = def.status === 400 ? PROBLEM_TYPES.badRequest : (TYPE_BY_STATUS[def.status] ?? PROBLEM_TYPES.badRequest)
  const problem = new ProblemError(def.status, type, def.message).problem
  answerOnSocket(error, socket, def.status, 'application/problem+json; charset=utf-8', JSON.stringify(problem))
}

/**
 * What Fastify's router refuses before any hook runs (a path whose percent-escapes are not UTF-8, a
 * path parameter over its length bound): a problem document too, never Fastify's own JSON, which echoes the path.
 */
export function adminFrameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400
  reply.header('cache-control', 'no-store')
  void sendProblem(reply, new ProblemError(status, status === 400 ? PROBLEM_TYPES.badRequest : (TYPE_BY_STATUS[status] ?? PROBLEM_TYPES.badRequest), 'The request path is malformed.').problem)
}
