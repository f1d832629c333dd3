import { randomUUID } from 'node:crypto'
import swagger from '@fastify/swagger'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import type { DomainDeps } from '../domain/deps.ts'
import { BOUNDS } from '../web/bounds.ts'
import { metricsRoute } from '../web/plugins/metrics.ts'
import { AccessLog } from '../web/access-log.ts'
import { requestPath } from '../web/request-url.ts'
import { installAdminAuth } from './auth.ts'
import { adminClientErrorHandler, adminFrameworkErrors, installProblemErrors } from './errors.ts'
import { appRoutes } from './routes/apps.ts'
import { auditRoutes } from './routes/audit.ts'
import { identityRoutes } from './routes/identities.ts'
import { loginChallengeRoutes } from './routes/login-challenges.ts'
import { userRoutes } from './routes/users.ts'
import { userImportRoutes } from './routes/user-import.ts'
import { webhookRoutes } from './routes/webhooks.ts'
import { registerTestKit, type TestKitControls } from './routes/test-kit.ts'

export interface AdminAppDeps {
  domain: DomainDeps
  logger: Logger
  https?: { cert: Buffer; key: Buffer }
  /** The Prometheus scrape served at GET /metrics, behind the admin token like every admin route. */
  scrape?: () => Promise<string>
  /** The test mode's controls: its control calls are routes (and in the OpenAPI document) only when given. */
  testKit?: TestKitControls
  /** `--public-url`: where a login challenge's answer sends the browser back to (else the admin request's origin). */
  publicUrl?: URL | undefined
}

/** The admin access log's path: a login challenge (a one-time value a browser holds) never written. */
function loggedAdminPath(request: FastifyRequest): string {
  return requestPath(request).replace(/^\/admin\/v1\/login-challenges\/[^/]+/, '/admin/v1/login-challenges/{challenge}')
}

/** Admin request bodies are small JSON documents; anything larger is refused before it is parsed. */
const ADMIN_BODY_BYTES = 64 * 1024

/**
 * Two validators: bodies are taken exactly as sent (a "5" is not a number, an unknown field is
 * refused, never dropped); the query string and path are text, so their numbers are read from it.
 */
function validators() {
  const base = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const
  const body = addFormats.default(new Ajv({ ...base, coerceTypes: false }))
  const text = addFormats.default(new Ajv({ ...base, coerceTypes: true }))
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) => (httpPart === 'body' ? body : text).compile(schema)
}

export const OPENAPI_INFO = {
  title: 'Latchkey admin API',
  version: '1',
  description:
    'Everything the `latchkey` CLI does, over HTTP on the admin listener. Every request needs `Authorization: Bearer <admin token>` (`latchkey admin-token create`). Errors are RFC 9457 problem documents.',
}

/** The admin listener's service: a Fastify instance of its own, never the public one's routes. */
export async function buildAdminApp(deps: AdminAppDeps): Promise<FastifyInstance> {
  const logger = deps.logger.child({ listener: 'admin' })
  const app = Fastify({
    loggerInstance: logger,
    // One line per request, with the path only: a query string may hold a screen name someone is looking for.
    logController: new AccessLog(logger, { message: 'admin request', enabled: true, pathOf: loggedAdminPath }),
    genReqId: () => randomUUID(),
    bodyLimit: ADMIN_BODY_BYTES,
    requestTimeout: BOUNDS.requestTimeoutMs,
    connectionTimeout: BOUNDS.requestTimeoutMs,
    keepAliveTimeout: BOUNDS.keepAliveTimeoutMs,
    http: { maxHeaderSize: BOUNDS.headerBytes },
    // Refusals before routing are problem documents too, like every other admin error.
    clientErrorHandler: adminClientErrorHandler,
    frameworkErrors: adminFrameworkErrors,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...(deps.https ? { https: { ...deps.https, maxHeaderSize: BOUNDS.headerBytes } } : {}),
  }) as unknown as FastifyInstance
  app.setValidatorCompiler(validators())
  acceptBodilessJson(app)
  installProblemErrors(app)
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store')
  })
  installAdminAuth(app, deps.domain)

  await registerAdminRoutes(app, deps.testKit, deps.publicUrl)
  if (deps.scrape) await app.register(metricsRoute(deps.scrape))
  return app
}

/**
 * A request without a body is one without a body whatever its Content-Type says: many API clients
 * send `Content-Type: application/json` with every request, a bodiless DELETE included. A body that
 * is there goes to Fastify's own JSON parser (its prototype-poisoning checks included).
 */
function acceptBodilessJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined)
    return parse(request, String(body), done)
  })
}

/** Operations whose body may be left out (their route turns no body into `{}`). */
const OPTIONAL_BODIES = new Set(['rotateKeys', 'rotateClientSecret', 'rejectLoginChallenge'])

/** @fastify/swagger marks every request body required; these are not. */
function markOptionalBodies<T extends { paths?: object }>(document: T): T {
  for (const methods of Object.values(document.paths ?? {}) as Array<Record<string, { operationId?: string; requestBody?: { required?: boolean } }>>) {
    for (const operation of Object.values(methods)) {
      if (operation.requestBody && OPTIONAL_BODIES.has(operation.operationId ?? '')) operation.requestBody.required = false
    }
  }
  return document
}

/** The routes and the OpenAPI document built from their schemas (the document is served by a route of its own). */
async function registerAdminRoutes(app: FastifyInstance, testKit?: TestKitControls, publicUrl?: URL): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: OPENAPI_INFO,
      components: { securitySchemes: { adminToken: { type: 'http', scheme: 'bearer' } } },
      security: [{ adminToken: [] }],
      tags: [
        { name: 'users', description: 'People who can sign in and authorize apps' },
        { name: 'apps', description: 'Registered applications and their credentials' },
        { name: 'authorizations', description: 'Which apps a person has authorized' },
        { name: 'audit', description: 'The audit trail' },
        { name: 'login-challenges', description: "Login delegation: the platform's login page answers a sign-in" },
        { name: 'webhooks', description: 'The revocation push: endpoints told when a credential ends' },
        ...(testKit ? [{ name: 'test', description: "The test mode's control calls (serve --test only)" }] : []),
      ],
    },
    transformObject: (documents) => ('openapiObject' in documents ? markOptionalBodies(documents.openapiObject) : documents.swaggerObject),
  })
  await app.register(userRoutes)
  await app.register(userImportRoutes)
  await app.register(identityRoutes)
  await app.register(loginChallengeRoutes(publicUrl))
  await app.register(appRoutes)
  await app.register(auditRoutes)
  await app.register(webhookRoutes)
  if (testKit) await registerTestKit(app, testKit)
  // Served with the admin listener's own address as the reader reached it (no proxy stands before it).
  app.get('/admin/v1/openapi.json', { schema: { hide: true } }, async (request) => ({ ...app.swagger(), servers: [{ url: `${request.protocol}://${request.host}` }] }))
}

/** The admin API's OpenAPI document, as GET /admin/v1/openapi.json serves it, without a database or a socket. */
export async function renderAdminOpenApi(): Promise<object> {
  const app = Fastify() as unknown as FastifyInstance
  app.setValidatorCompiler(validators())
  await registerAdminRoutes(app)
  await app.ready()
  const document = app.swagger()
  await app.close()
  return document
}
