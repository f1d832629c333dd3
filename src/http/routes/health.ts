import type { FastifyInstance } from 'fastify'
import { E } from '../../errors/catalogue.ts'
import type { StorageRuntime } from '../../storage/types.ts'

/**
 * Liveness (the process answers) and readiness with reasons: /readyz names each dependency and its
 * state, so a failing rollout says which one is down (never why in detail: no host, no message).
 */
export function healthRoutes(runtime: Pick<StorageRuntime, 'checkDependencies'>) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', async () => ({ status: 'ok' }))
    app.get('/readyz', async (_request, reply) => {
      const dependencies = await runtime.checkDependencies()
      const isReady = dependencies.database === 'up' && dependencies.redis !== 'down' && dependencies.master_key === 'loaded'
      if (isReady) return { status: 'ready', dependencies }
      const { status, code, message } = E.overCapacity
      return reply.code(status).send({ status: 'not_ready', dependencies, errors: [{ code, message }] })
    })
  }
}
