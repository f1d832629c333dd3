import type { Socket } from 'node:net'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { E, type ErrorDef } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { errorBody } from './json-errors.ts'

/**
 * Every input has a bound, and every request is answered or its connection closed within seconds.
 * Past a bound the client gets a 4xx with the JSON error body, never a 5xx or a hang.
 */
export const BOUNDS = {
  /** Request line plus headers (Node answers past it through clientErrorHandler below). */
  headerBytes: 16 * 1024,
  urlLength: 4096,
  bodyBytes: 64 * 1024,
  /** Whole request, headers and body. */
  requestTimeoutMs: 10_000,
  headersTimeoutMs: 5_000,
  keepAliveTimeoutMs: 5_000,
} as const

/** The reason phrase of each status clientErrorDef gives. */
const REASONS: Readonly<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }

const statusLine = (status: number) => `HTTP/1.1 ${status} ${REASONS[status]}`

/** What Node's HTTP parser refused, as the catalogue names it. */
export function clientErrorDef(error: NodeJS.ErrnoException): ErrorDef {
  return error.code === 'HPE_HEADER_OVERFLOW' ? E.headersTooLarge : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? E.requestTimeout : E.badRequest
}

/**
 * Writes an error answer on the raw socket and closes it: a `clientErrorHandler` answers before
 * Fastify has a request or a reply. Nothing when the client has gone already.
 */
export function answerOnSocket(error: NodeJS.ErrnoException, socket: Socket, status: number, contentType: string, body: string): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return
  socket.end(
    [
      statusLine(status),
      `Content-Type: ${contentType}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      `Date: ${new Date().toUTCString()}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  )
}

/**
 * Node's HTTP parser rejects what cannot be an HTTP request (headers too large, garbage, a timeout)
 * before Fastify sees it; this writes our JSON error on the raw socket and closes it.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  const def = clientErrorDef(error)
  answerOnSocket(error, socket, def.status, 'application/json; charset=utf-8', JSON.stringify(errorBody(new ServiceError(def))))
}

/**
 * An HTTP/1.1 request must carry exactly one Host header (RFC 9112 §3.2); an HTTP/1.0 one at most
 * one (1.0 had none). Node's own check answers
 * a bare 400 with no body, so it is turned off (requireHostHeader: false) and made here instead,
 * with the JSON error body; the connection is closed, since what else it carries cannot be trusted.
 */
export function refuseBadHost(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw.rawHeaders
  let hosts = 0
  // The length first: most names are not four characters, and this runs for every request.
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++
  if (hosts === 1 || (hosts === 0 && request.raw.httpVersion === '1.0')) return
  reply.header('connection', 'close')
  throw new ServiceError(E.badRequest, { detail: hosts === 0 ? 'no Host header' : 'more than one Host header' })
}
