import type { FastifyInstance } from 'fastify'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { sendJsonError, toServiceError } from '../error-reply.ts'
import { setLimitHeaders } from './rate-limit.ts'

/**
 * The JSON context's one error renderer, plus 404 code 34 for an unknown path and 405 with an Allow
 * header for a known path asked with the wrong method.
 */
export function installJsonErrors(app: FastifyInstance, knownMethods: (path: string) => string[] | undefined): void {
  app.setErrorHandler((error, request, reply) => {
    const serviceError = toServiceError(error)
    if (serviceError.status >= 500) {
      request.log.error({ err: error, reqId: request.id }, 'request failed')
    } else if (serviceError.detail) {
      request.log.info({ code: serviceError.code, detail: serviceError.detail }, 'request refused')
    }
    // A call refused after it was charged (by its limit or a later check) shows that limit's state.
    setLimitHeaders(reply, serviceError.rateLimit)
    return sendJsonError(reply, serviceError)
  })
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '/'
    const methods = knownMethods(path)
    if (methods) {
      reply.header('allow', methods.join(', '))
      return sendJsonError(reply, new ServiceError(E.methodNotAllowed))
    }
    return sendJsonError(reply, new ServiceError(E.pageNotFound))
  })
}
