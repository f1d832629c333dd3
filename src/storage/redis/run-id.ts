import type { Redis } from 'ioredis'
import { StorageUnavailableError } from '../errors.ts'

/**
 * The run id of the Redis the connection is talking to, asked once per connection: forgotten when
 * the connection closes, so that the first command on a new connection (a restarted Redis, a
 * promoted replica) carries the new server's id.
 */
export function trackRunId(redis: Redis): { current(): Promise<string> } {
  let runId: Promise<string> | undefined
  redis.on('close', () => (runId = undefined))
  return {
    current() {
      runId ??= redis
        .info('server')
        .then((info) => {
          const found = /^run_id:(\w+)/m.exec(info)?.[1]
          if (!found) throw new StorageUnavailableError('Redis did not say its run_id (INFO server)')
          return found
        })
        .catch((error: unknown) => {
          runId = undefined
          throw error
        })
      return runId
    },
  }
}
