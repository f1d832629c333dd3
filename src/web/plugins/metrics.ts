import type { FastifyInstance, onResponseHookHandler } from 'fastify'
import type { HttpRouteRecorder } from '../../observability/metrics.ts'
import { Registry } from 'prom-client'

/** Requests that match no route (404s, refusals before routing) share one label value. */
export const UNMATCHED_ROUTE = 'unmatched'

/**
 * Counts every answer of `app` by route pattern (never the raw URL: its path and query may carry
 * tokens), method and status, and observes its duration. Each route gets its own onResponse hook
 * with its recorder, made once as the route is declared; the answers no route matched (404s, and
 * what the router refuses) share one recorder, through the one app-wide hook.
 */
export function installHttpMetrics(app: FastifyInstance, recorderOf: (route: string) => HttpRouteRecorder): void {
  app.addHook('onRoute', (route) => {
    const recorder = recorderOf(route.url)
    const record: onResponseHookHandler = (request, reply, done) => {
      recorder.record(request.method, reply.statusCode, reply.elapsedTime / 1000)
      done()
    }
    // A new array: the route's own options object may be shared (Fastify copies a GET's for its HEAD).
    route.onResponse = [...[route.onResponse ?? []].flat(), record]
  })
  const unmatched = recorderOf(UNMATCHED_ROUTE)
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched.record(request.method, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
}

/**
 * GET /metrics answering `scrape()` in the Prometheus text format. A plain plugin, so whoever
 * registers it decides who may scrape: the admin listener registers it inside its admin-token
 * scope; the public listener only with --metrics-public.
 */
export function metricsRoute(scrape: () => Promise<string>) {
  return async (app: FastifyInstance) => {
    // Not an API operation: kept out of the OpenAPI documents.
    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
      return reply.type(Registry.PROMETHEUS_CONTENT_TYPE).send(await scrape())
    })
  }
}
