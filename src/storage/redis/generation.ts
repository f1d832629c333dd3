import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { GenerationValue } from '../types.ts'
import { toStorageError } from '../unavailable.ts'
import { trackRunId } from './run-id.ts'

/**
 * The credentials' generation of a PostgreSQL deployment, kept in its Redis so that every instance
 * and the CLI share it: a key that every write to a credential sets to a new random value after its
 * commit (`move`), read with the Redis run id (`read`). A value is never used twice, so a cache
 * filled under one can never take a later one for its own, even after the key was evicted or
 * flushed; a Redis restarted from an older snapshot, or a replica promoted, has another run id.
 */
export interface RedisGeneration {
  read(): Promise<GenerationValue>
  move(): Promise<void>
}

export function createRedisGeneration(redis: Redis, key: string): RedisGeneration {
  const runIds = trackRunId(redis)
  return {
    async read() {
      try {
        const [runId, value] = await Promise.all([runIds.current(), redis.get(key)])
        return `${runId}:${value ?? ''}`
      } catch (error) {
        throw toStorageError(error, 'Redis')
      }
    },
    async move() {
      try {
        await redis.set(key, randomUUID())
      } catch (error) {
        throw toStorageError(error, 'Redis')
      }
    },
  }
}
