import type { FastifyInstance } from 'fastify'
import { StorageUnavailableError } from '../../storage/errors.ts'
import type { StorageRuntime } from '../../storage/types.ts'

/** Liveness (the process answers) and readiness (the database answers), for load balancers. */
export function healthRoutes(runtime: Pick<StorageRuntime, 'ping'>) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', async () => ({ status: 'ok' }))
    app.get('/readyz', async () => {
      try {
        await runtime.ping()
      } catch (error) {
        throw new StorageUnavailableError('database unreachable', { cause: error })
      }
      return { status: 'ready' }
    })
  }
}
