import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import pino from 'pino'
import { buildAdminApp } from '../../src/admin/app.ts'
import { createAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { overSocket, type Transport } from './oauth1-client.ts'
import { injectInto, injectedTestServer, startTestServer, type TestServer } from './test-app.ts'

export interface AdminTestServer extends TestServer {
  /** http://127.0.0.1:PORT of the admin listener, or the injected admin app's stand-in URL. */
  adminUrl: string
  adminApp: FastifyInstance
  /** A live admin token and its id. */
  token: string
  tokenId: string
  /** A JSON call to the admin API with the token (or `auth` instead); the answer's status, headers and parsed body. */
  admin(method: string, path: string, body?: unknown, options?: { auth?: string | null; rawBody?: string; contentType?: string }): Promise<AdminAnswer>
}

export interface AdminAnswer {
  status: number
  headers: Headers
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever the document holds
  json: any
  text: string
}

/** The test server's options, and route plugins the admin app registers besides its own (the test mode's). */
export type AdminTestOptions = Parameters<typeof startTestServer>[0] & { adminRoutes?: FastifyPluginAsync[] }

/** The public service and the admin listener over the same fresh storage, both on real loopback sockets. */
export async function startAdminTestServer(options: AdminTestOptions = {}): Promise<AdminTestServer> {
  const { adminRoutes, ...serverOptions } = options
  const server = await startTestServer(serverOptions)
  const adminApp = await buildTestAdminApp(server, adminRoutes)
  await adminApp.listen({ host: '127.0.0.1', port: 0 })
  const address = adminApp.server.address()
  return withAdmin(server, adminApp, `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, overSocket)
}

/** The same, neither listening: the public service and the admin API answer through Fastify's inject. */
export async function injectedAdminTestServer(options: AdminTestOptions = {}): Promise<AdminTestServer> {
  const { adminRoutes, ...serverOptions } = options
  const server = await injectedTestServer(serverOptions)
  const adminApp = await buildTestAdminApp(server, adminRoutes)
  return withAdmin(server, adminApp, INJECTED_ADMIN_URL, injectInto(adminApp))
}

const INJECTED_ADMIN_URL = 'http://admin.latchkey.test'

async function buildTestAdminApp(server: TestServer, routes: FastifyPluginAsync[] = []): Promise<FastifyInstance> {
  // The public service's URL: where a login challenge's answer sends the browser back to.
  const adminApp = await buildAdminApp({ domain: server.domain, logger: pino({ level: process.env.LATCHKEY_TEST_LOG ?? 'silent' }), publicUrl: new URL(server.url) })
  for (const plugin of routes) await adminApp.register(plugin)
  return adminApp
}

async function withAdmin(server: TestServer, adminApp: FastifyInstance, adminUrl: string, transport: Transport): Promise<AdminTestServer> {
  const { record, token } = await createAdminToken(server.domain, 'tests')
  const admin: AdminTestServer['admin'] = async (method, path, body, callOptions = {}) => {
    const headers: Record<string, string> = {}
    const auth = callOptions.auth === undefined ? `Bearer ${token}` : callOptions.auth
    if (auth !== null) headers.authorization = auth
    const payload = callOptions.rawBody ?? (body === undefined ? undefined : JSON.stringify(body))
    if (payload !== undefined) headers['content-type'] = callOptions.contentType ?? 'application/json'
    const response = await transport({ method, url: `${adminUrl}${path}`, headers, ...(payload === undefined ? {} : { body: payload }) })
    const text = await response.text()
    let json: unknown
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, json, text }
  }
  return {
    ...server,
    adminUrl,
    adminApp,
    token,
    tokenId: record.id,
    admin,
    async close() {
      await adminApp.close()
      await server.close()
    },
  }
}
