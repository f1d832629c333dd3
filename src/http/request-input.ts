import type { FastifyRequest } from 'fastify'
import type { RequestInput } from '../domain/request.ts'
import { connectionOf, publicOrigin, rawQuery, requestPath } from '../web/request-url.ts'

/** The framework-free view of a Fastify request that the use cases read. */
export function requestInput(request: FastifyRequest, publicUrl: URL | undefined): RequestInput {
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
    endpoint: request.routeOptions.url,
    clientAddress: connection.ip,
    addressBudget: request.routeOptions.config.addressBudget,
  }
}
