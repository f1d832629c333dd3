import type { FastifyInstance } from 'fastify'
import { Registry } from 'prom-client'

/** Requests that match no route (404s, refusals before routing) share one label value. */
export const UNMATCHED_ROUTE = 'unmatched'

/**
 * Counts every answer of `app` by route pattern (never the raw URL: its path and query may carry
 * tokens), method and status, and observes its duration. Hooks added here apply to every route.
 */
export function installHttpMetrics(app: FastifyInstance, record: (route: string, method: string, status: number, seconds: number) => void): void {
  app.addHook('onResponse', (request, reply, done) => {
    record(request.routeOptions.url ?? UNMATCHED_ROUTE, request.method, reply.statusCode, reply.elapsedTime / 1000)
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
