import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { toServiceError } from '../web/json-errors.ts'
import { sendPage } from './reply.ts'
import { errorPage } from './views/outcome.ts'

/** Codes from 1100 up are written for people; the API's own codes get a plain sentence by status. */
const FIRST_PAGE_CODE = 1100

/** Refusals that are no broken link, headed for what they are. */
const OWN_TITLES: ReadonlyMap<number, string> = new Map([
  [E.signUpClosed.code, 'Sign-up is closed'],
  [E.delegatedSignInRejected.code, 'Sign-in refused'],
  [E.passwordSignInOff.code, 'Password sign-in is off'],
])

function title({ status, code }: ServiceError): string {
  const own = OWN_TITLES.get(code)
  if (own !== undefined) return own
  if (status >= 500) return 'Something went wrong'
  if (status === 429) return 'Too many attempts'
  if (status === 404 || status === 410) return 'This link does not work'
  if (status === 403) return 'This is not allowed'
  return 'This request did not work'
}

function message(error: ServiceError): string {
  if (error.code >= FIRST_PAGE_CODE) return error.message
  if (error.code === E.sslRequired.code) return 'This page must be opened over a secure (https) connection.'
  if (error.code === E.credentialUnreadable.code) return 'This app cannot be used now: the service cannot read its stored keys. Ask the operator of this service.'
  if (error.status >= 500) return 'Something went wrong on our side. Please try again in a few minutes.'
  if (error.status === 413) return 'The form sent was too large.'
  if (error.status === 429) return 'Too many requests from your network. Please wait a few minutes and try again.'
  return 'This request was not valid. Go back to the app and start again.'
}

/** The paths the pages answer (every other path is the JSON API's): /oauth/authorize, /oauth/authenticate, /console…, /settings…, /login/…. */
export function isPagePath(url: string): boolean {
  return /^\/((oauth\/(authorize|authenticate)|i\/oauth2\/authorize|console|settings|docs|login)(\/|\?|$)|(\?|$))/.test(url)
}

/**
 * Fastify's `frameworkErrors` for a page path: what its router refuses before any hook runs (a
 * path whose percent-escapes are not UTF-8, a path parameter over its length bound) as the pages'
 * plain error page, never Fastify's own JSON, which echoes the path.
 */
export function pageFrameworkError(error: FastifyError, reply: FastifyReply): void {
  void sendErrorPage(reply, new ServiceError(error.statusCode === 414 ? E.urlTooLong : E.badRequest, { cause: error, detail: error.code }))
}

/** The error as the pages' plain HTML page; `reference`, for a 5xx: the request id, all it shows of the cause. */
export function sendErrorPage(reply: FastifyReply, error: ServiceError, reference?: string): FastifyReply {
  const text = reference === undefined ? message(error) : `${message(error)} (Reference: ${reference})`
  return sendPage(reply, error.status, errorPage(title(error), text))
}

/** The pages context's one error handler: a plain HTML page; a 5xx shows only the request id. */
export function installPageErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const serviceError = toServiceError(error)
    if (serviceError.status >= 500) {
      request.log.error({ err: error, reqId: request.id }, 'page failed')
      return sendErrorPage(reply, serviceError, request.id)
    }
    request.log.info({ code: serviceError.code, detail: serviceError.detail }, 'page refused')
    return sendErrorPage(reply, serviceError)
  })
}
