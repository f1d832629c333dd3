import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { SealError, StorageUnavailableError } from '../storage/errors.ts'
import { limitHeaders, setLimitHeaders } from './plugins/rate-limit.ts'
import { InjectedFailure } from './test-kit/faults.ts'

// The JSON error renderer, all of it: what may be shown of anything thrown, the body, the reply,
// and the handlers Fastify calls. The pages render the same ServiceError as HTML (pages/error-page.ts);
// Node's own refusals before routing are written on the socket with the same body (bounds.ts).

/** The JSON error body every endpoint answers with: `{"errors":[{"code":N,"message":"..."}]}`. */
export function errorBody(error: ServiceError): { errors: Array<{ code: number; message: string; label?: string }> } {
  const entry: { code: number; message: string; label?: string } = { code: error.code, message: error.publicMessage }
  if (error.label) entry.label = error.label
  return { errors: [entry] }
}

/**
 * Turns anything thrown into the ServiceError the client may see: ours as they are, Fastify's own
 * 4xx (bad Content-Length, body too large...) into our codes, a storage outage into 503/130, a
 * stored secret that cannot be opened into a refusal of its credential (403/1009), and anything
 * else into a bare 500/131 whose cause only the log sees.
 */
export function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error
  if (error instanceof StorageUnavailableError) return new ServiceError(E.overCapacity, { cause: error })
  if (error instanceof SealError) return new ServiceError(E.credentialUnreadable, { cause: error, detail: error.message })
  const fastifyError = error as { statusCode?: number; code?: string }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    if (fastifyError.statusCode === 413) return new ServiceError(E.requestTooLarge, { cause: error })
    return new ServiceError(E.badRequest, { cause: error, detail: fastifyError.code })
  }
  return new ServiceError(E.internalError, { cause: error })
}

/** How long a reason may be in its header, and what it may hold: printable ASCII. */
const REASON_CHARS = 300

/** What the error handlers of a listener are told once. */
export interface ErrorOptions {
  /**
   * Development mode only: a refusal carries the server's reason (what the log says of it) in an
   * `x-latchkey-reason` header, so that a developer sees why a request failed; the body keeps X's
   * shape. Never in production, where the reason would help an attacker more than a client.
   */
  showReasons: boolean
}

/**
 * What the client may see of anything thrown, logged as the logs see it (a 5xx with its cause, a
 * refusal with its detail), with the limit's headers when the call was charged before it was
 * refused, or when the refusal was counted against the client's address.
 */
export async function serviceErrorOf(error: unknown, request: FastifyRequest, reply: FastifyReply, options: ErrorOptions): Promise<ServiceError> {
  const countFailure = error instanceof InjectedFailure ? undefined : request.routeOptions.config?.countFailure
  // A refusal counts against the client's address where the route keeps its budget (an outage there is the answer); a failure the test kit injected does not.
  const serviceError = countFailure ? await countFailure(request, toServiceError(error)).catch(toServiceError) : toServiceError(error)
  if (serviceError.status >= 500 && !(serviceError instanceof InjectedFailure)) {
    request.log.error({ err: serviceError.cause ?? error, reqId: request.id }, 'request failed')
  } else if (serviceError.detail) {
    request.log.info({ code: serviceError.code, detail: serviceError.detail }, 'request refused')
    if (options.showReasons) reply.header('x-latchkey-reason', serviceError.detail.replace(/[^\x20-\x7e]/g, '?').slice(0, REASON_CHARS))
  }
  setLimitHeaders(reply, serviceError.rateLimit)
  return serviceError
}

/** The challenge a 401 of the API carries. */
const API_CHALLENGE = 'OAuth realm="Latchkey"'

/**
 * A refusal as X answers it, whole — status, the headers it carries and the body — for a client of
 * Latchkey's API or, through POST /latchkey/check-request, the client of a resource server.
 */
export function refusalAnswer(error: ServiceError): { status: number; headers: Record<string, string>; body: ReturnType<typeof errorBody> } {
  const headers: Record<string, string> = {}
  if (error.status === 401) headers['www-authenticate'] = API_CHALLENGE
  if (error.rateLimit) Object.assign(headers, limitHeaders(error.rateLimit))
  return { status: error.status, headers, body: errorBody(error) }
}

/** Which renderer answers a route's refusals: v1.1's JSON (a route that says nothing), RFC 6749 bodies, or X's v2 problems. */
export type RefusalFamily = 'v1' | 'oauth2' | 'v2'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by the context's error renderer (installContextErrors): what refuses before the route runs reads it. */
    refusals?: RefusalFamily
  }
}

/**
 * A context's one error renderer, other than v1.1's JSON: every error of its routes goes to `send`,
 * and each route says so in its config, for what refuses in its family before the route runs (the
 * test kit's faults, src/web/test-kit/faults.ts).
 */
export function installContextErrors(app: FastifyInstance, family: RefusalFamily, send: (reply: FastifyReply, error: ServiceError) => FastifyReply, options: ErrorOptions): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, refusals: family }
  })
  app.setErrorHandler(async (error, request, reply) => send(reply, await serviceErrorOf(error, request, reply, options)))
}

/** Sends the error as JSON, with the headers every error answer carries. */
export function sendJsonError(reply: FastifyReply, error: ServiceError): FastifyReply {
  reply.header('cache-control', 'no-store')
  if (error.status === 401) reply.header('www-authenticate', API_CHALLENGE)
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error))
}

/**
 * The JSON context's one error renderer, plus 404 code 34 for an unknown path and 405 with an Allow
 * header for a known path asked with the wrong method.
 */
export function installJsonErrors(app: FastifyInstance, knownMethods: (path: string) => string[] | undefined, options: ErrorOptions): void {
  app.setErrorHandler(async (error, request, reply) => sendJsonError(reply, await serviceErrorOf(error, request, reply, options)))
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

/**
 * Fastify's `frameworkErrors` for the public listener's API paths: what its router refuses before
 * any hook runs (a path whose percent-escapes are not UTF-8, FST_ERR_BAD_URL) gets our JSON error
 * body, 400 code 1000, not Fastify's own, which has another shape and echoes the path. (The API has
 * no path parameters, so no FST_ERR_MAX_PARAM_LENGTH: that is the pages', error-page.ts.)
 */
export function jsonFrameworkErrors(_error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendJsonError(reply, new ServiceError(E.badRequest))
}
