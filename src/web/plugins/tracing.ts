import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { RequestSpan, RequestTracing } from '../../observability/tracing.ts'
import { connectionOf } from '../request-url.ts'

/**
 * One server span per request, named after its route (Fastify has routed the request before its
 * onRequest hooks run). Installed first, so every later hook, the handler and their storage calls
 * run inside the span's context and become its children. Only when tracing is on.
 */
export function installTracing(app: FastifyInstance, tracing: RequestTracing): void {
  const spans = new WeakMap<FastifyRequest, RequestSpan>()
  app.addHook('onRequest', (request, _reply, done) => {
    const requestSpan = tracing.startRequest({
      method: request.method,
      route: request.routeOptions.url,
      scheme: connectionOf(request).protocol === 'https' ? 'https' : 'http',
      httpVersion: request.raw.httpVersion,
      headers: request.headers,
    })
    spans.set(request, requestSpan)
    tracing.enter(requestSpan, done)
  })
  app.addHook('onResponse', (request, reply, done) => {
    const requestSpan = spans.get(request)
    if (requestSpan) tracing.endRequest(requestSpan, reply.statusCode)
    done()
  })
}
