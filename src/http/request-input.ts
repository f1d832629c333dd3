import type { FastifyReply, FastifyRequest } from 'fastify'
import { countedCall } from './plugins/rate-limit.ts'
import type { RequestInput } from '../domain/request.ts'
import { connectionOf, publicOrigin, rawQuery, requestPath } from './request-url.ts'

/** The framework-free view of a Fastify request that the OAuth 1.0a verifier reads. */
export function requestInput(request: FastifyRequest, reply: FastifyReply, publicUrl: URL | undefined): RequestInput {
  const origin = publicOrigin(request, publicUrl)
  const connection = connectionOf(request)
  return {
    method: request.method,
    scheme: origin.scheme,
    host: origin.host,
    path: requestPath(request),
    query: rawQuery(request),
    authorization: request.headers.authorization,
    contentType: request.headers['content-type'],
    body: Buffer.isBuffer(request.body) ? request.body : undefined,
    isSecure: connection.protocol === 'https',
    rateLimit: countedCall(request, reply),
    clientAddress: connection.ip,
  }
}
