import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { DomainDeps } from './domain/deps.ts'
import type { SignInThrottle } from './domain/sign-in.ts'
import type { RequestTracing } from './observability/tracing.ts'
import type { HttpRouteRecorder } from './observability/metrics.ts'
import { E } from './errors/catalogue.ts'
import { ServiceError } from './errors/service-error.ts'
import { AccessLog, lazyChildLogger } from './web/access-log.ts'
import { BOUNDS, clientErrorHandler, refuseBadHost } from './web/bounds.ts'
import { refuseCredentialsInUrl } from './web/credentials-in-url.ts'
import { installJsonErrors, jsonFrameworkErrors } from './web/json-errors.ts'
import { installAddressLimits } from './web/plugins/rate-limit.ts'
import { accountRoutes } from './http/routes/account.ts'
import { checkRequestRoutes } from './http/routes/check-request.ts'
import { applicationRoutes } from './http/routes/application.ts'
import { FORWARD_AUTH_PATH, forwardAuthRoutes } from './http/routes/forward-auth.ts'
import { healthRoutes } from './http/routes/health.ts'
import { oauth1Routes } from './http/routes/oauth1.ts'
import { oauth2Routes } from './http/routes/oauth2.ts'
import { oauth2UserRoutes, usersMeRoutes } from './http/routes/oauth2-user.ts'
import { openApiRoutes } from './http/routes/openapi.ts'
import { connectionOf, requestPath } from './web/request-url.ts'
import { trustedProxies } from './web/trusted-proxies.ts'
import { installHttpMetrics, metricsRoute } from './web/plugins/metrics.ts'
import { installTracing } from './web/plugins/tracing.ts'
import { installFaults, type FaultQueue } from './web/test-kit/faults.ts'
import { installJournal, type RequestJournal } from './web/test-kit/journal.ts'
import { isPagePath, pageFrameworkError } from './pages/error-page.ts'
import { pagesPlugin, type PageSettings } from './pages/plugin.ts'

export interface HttpSettings extends PageSettings {
  /** Development mode: plain HTTP is accepted. */
  dev: boolean
  /** Addresses/CIDRs whose X-Forwarded-* headers are believed. */
  trustProxy: string[]
  https?: { cert: Buffer; key: Buffer }
  /** The Strict-Transport-Security value sent on HTTPS answers in production (undefined: none). */
  hsts?: string | undefined
  /** One log line per request (AccessLog, src/web/access-log.ts); false is `--access-log off`. Default on. */
  accessLog?: boolean
}

/** The metrics the app records and, with --metrics-public, serves on GET /metrics. */
export interface AppMetrics {
  httpRoute(route: string): HttpRouteRecorder
  /** Set with --metrics-public: this process's (or, with workers, every worker's) metrics. */
  publicScrape?: (() => Promise<string>) | undefined
}

/** What the HTTP service is built from, every part made by the composition root (src/composition/). */
export interface AppDeps {
  domain: DomainDeps
  /** The pages' sign-in throttle, on the stores' limiters. */
  throttle: SignInThrottle
  http: HttpSettings
  logger: Logger
  metrics?: AppMetrics | undefined
  /** Set when an OTLP endpoint is: a server span per request. */
  tracing?: RequestTracing | undefined
  /**
   * Test mode only (`serve --test`): X's failures on demand and the request journal
   * (src/web/test-kit/). Absent, nothing of them is installed on the request path.
   */
  testKit?: TestKit | undefined
}

export interface TestKit {
  faults: FaultQueue
  journal: RequestJournal
}

/**
 * Answered over plain HTTP in production too: load balancers, scrapers and reverse proxies call
 * from inside the network (forward auth judges the client's own request's scheme itself).
 */
const PLAIN_HTTP_PATHS = new Set(['/healthz', '/readyz', '/metrics', FORWARD_AUTH_PATH])

/** Builds the whole service as a Fastify instance (routes, pages, errors); it never listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  // Test mode: the domain's signed-request event feeds the request journal.
  if (deps.testKit) deps = { ...deps, domain: { ...deps.domain, observe: deps.testKit.journal.observing(deps.domain.observe) } }
  const app = Fastify({
    loggerInstance: deps.logger,
    // Fastify's own request lines would carry the query string (tokens, verifiers); ours carry the path.
    logController: new AccessLog(deps.logger, { message: 'request', enabled: deps.http.accessLog !== false }),
    childLoggerFactory: lazyChildLogger,
    genReqId: () => randomUUID(),
    trustProxy: deps.http.trustProxy.length > 0 ? trustedProxies(deps.http.trustProxy) : false,
    bodyLimit: BOUNDS.bodyBytes,
    requestTimeout: BOUNDS.requestTimeoutMs,
    connectionTimeout: BOUNDS.requestTimeoutMs,
    keepAliveTimeout: BOUNDS.keepAliveTimeoutMs,
    // Node checks the timeouts every connectionsCheckingInterval (30 s by default): check each second.
    // Node's own answer to a missing Host is a bare 400 with no body: ours (refuseBadHost) has the JSON body.
    http: { maxHeaderSize: BOUNDS.headerBytes, connectionsCheckingInterval: 1000, requireHostHeader: false },
    clientErrorHandler,
    // What the router refuses before any hook (a path that is not UTF-8, a path parameter too long):
    // a page's HTML error on the pages' paths, the JSON error body everywhere else.
    frameworkErrors: (error, request, reply) => (isPagePath(request.raw.url ?? '') ? pageFrameworkError(error, reply) : jsonFrameworkErrors(error, request, reply)),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...(deps.http.https ? { https: { ...deps.http.https, maxHeaderSize: BOUNDS.headerBytes, connectionsCheckingInterval: 1000, requireHostHeader: false } } : {}),
  }) as unknown as FastifyInstance
  app.server.headersTimeout = BOUNDS.headersTimeoutMs
  if (deps.tracing) installTracing(app, deps.tracing)

  const routes = new Map<string, Set<string>>()
  app.addHook('onRoute', (route) => {
    const methods = routes.get(route.url) ?? new Set<string>()
    for (const method of [route.method].flat()) methods.add(method)
    routes.set(route.url, methods)
  })
  const errors = { showReasons: deps.http.dev }
  installJsonErrors(
    app,
    (path) => {
      const methods = routes.get(path)
      return methods && [...methods].sort()
    },
    errors,
  )

  // Bodies are kept raw: OAuth needs the exact form encoding, and other bodies are only hashed.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  // Callback hooks, not async ones: no promise per request (a throw is handed to the error handler all the same).
  app.addHook('onRequest', (request, reply, done) => {
    refuseBadHost(request, reply)
    // Clients correct their clock from the Date header (Node sets it); nothing here is cacheable.
    reply.header('cache-control', 'no-store')
    const isHttps = connectionOf(request).protocol === 'https'
    if (isHttps && deps.http.hsts && !deps.http.dev) reply.header('strict-transport-security', deps.http.hsts)
    if ((request.raw.url ?? '').length > BOUNDS.urlLength) throw new ServiceError(E.urlTooLong)
    if (!deps.http.dev && !isHttps && !PLAIN_HTTP_PATHS.has(requestPath(request))) {
      throw new ServiceError(E.sslRequired)
    }
    refuseCredentialsInUrl(requestPath(request), request.raw.url ?? '')
    done()
  })

  if (deps.testKit) {
    installJournal(app, deps.testKit.journal)
    installFaults(app, deps.testKit.faults, deps.testKit.journal, deps.domain)
  }
  if (deps.metrics) installHttpMetrics(app, deps.metrics.httpRoute)
  installAddressLimits(app, deps.domain.limiters, deps.domain.observe)

  await app.register(healthRoutes(deps.domain.runtime))
  await app.register(openApiRoutes(deps.http.publicUrl))
  if (deps.metrics?.publicScrape) await app.register(metricsRoute(deps.metrics.publicScrape))
  await app.register(pagesPlugin(deps))
  await app.register(oauth1Routes(deps.domain, deps.http.publicUrl))
  await app.register(accountRoutes(deps.domain, deps.http.publicUrl))
  await app.register(applicationRoutes(deps.domain, deps.http.publicUrl))
  await app.register(oauth2Routes(deps.domain, deps.http.publicUrl))
  await app.register(checkRequestRoutes(deps.domain, deps.http.publicUrl, errors))
  await app.register(oauth2UserRoutes(deps.domain, deps.http.publicUrl, errors))
  await app.register(usersMeRoutes(deps.domain, deps.http.publicUrl, errors))
  await app.register(forwardAuthRoutes(deps.domain, deps.http))
  return app
}
