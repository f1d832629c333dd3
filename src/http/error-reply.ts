import type { FastifyReply } from 'fastify'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { StorageUnavailableError } from '../storage/errors.ts'
import { errorBody } from './error-body.ts'


/**
 * Turns anything thrown into the ServiceError the client may see: ours as they are, Fastify's own
 * 4xx (bad Content-Length, body too large...) into our codes, a storage outage into 503/130, and
 * anything else into a bare 500/131 whose cause only the log sees.
 */
export function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error
  if (error instanceof StorageUnavailableError) return new ServiceError(E.overCapacity, { cause: error })
  const fastifyError = error as { statusCode?: number; code?: string }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    if (fastifyError.statusCode === 413) return new ServiceError(E.requestTooLarge, { cause: error })
    return new ServiceError(E.badRequest, { cause: error, detail: fastifyError.code })
  }
  return new ServiceError(E.internalError, { cause: error })
}

export function sendJsonError(reply: FastifyReply, error: ServiceError): FastifyReply {
  reply.header('cache-control', 'no-store')
  if (error.status === 401) reply.header('www-authenticate', 'OAuth realm="Latchkey"')
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error))
}
