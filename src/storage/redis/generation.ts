import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { GenerationValue } from '../types.ts'
import { toStorageError } from '../unavailable.ts'
import { trackRunId } from './run-id.ts'

/**
 * The credentials' generation of a PostgreSQL deployment, kept in its Redis so that every instance
 * and the CLI share it: a key that every write to a credential sets to a new random value after its
 * commit (`move`), read with the Redis run id (`read`). A value is never used twice, so a cache
 * filled under one can never take a later one for its own: a key found missing (evicted, flushed,
 * never set) is set to a new value before it is read; a Redis restarted from an older snapshot,
 * or a replica promoted, has another run id.
 */
export interface RedisGeneration {
  /** The generation now; undefined while a move of this process is owed (its cache then asks the database). */
  read(): Promise<GenerationValue> | undefined
  move(): Promise<void>
  /** Where it is kept: a request's admission reads it in its own script (admissions.ts). */
  readonly key: string
  /** Whether a move of this process is owed: while it is, no value read may be trusted by its cache. */
  isOwed(): boolean
}

/** How long a move that failed waits before it is tried again. */
const RETRY_MS = 100

export function createRedisGeneration(redis: Redis, key: string): RedisGeneration {
  const runIds = trackRunId(redis)
  const setNew = (mode?: 'NX') => (mode ? redis.set(key, randomUUID(), mode) : redis.set(key, randomUUID()))
  /**
   * A move that failed after its write committed is owed until Redis takes it: tried again in the
   * background, so that the other instances' caches learn of the write as soon as Redis answers.
   */
  let owed: ReturnType<typeof setTimeout> | undefined
  const retry = () => {
    owed = setTimeout(() => {
      if (redis.status === 'end') return
      setNew().then(() => (owed = undefined), retry)
    }, RETRY_MS)
    owed.unref()
  }
  async function readNow(): Promise<GenerationValue> {
    try {
      const [runId, value] = await Promise.all([runIds.current(), redis.get(key)])
      // Missing: set a new value first. Missing still (evicted at once): a value no cache was filled at.
      return `${runId}:${value ?? (await setNew('NX'), await redis.get(key)) ?? randomUUID()}`
    } catch (error) {
      throw toStorageError(error, 'Redis')
    }
  }
  /**
   * One GET on its way at a time: the reads asked for meanwhile wait for it and share the next one.
   * Never the one on its way: it may have left before a write that was answered before they asked.
   */
  let onItsWay: Promise<unknown> | undefined
  let next: Promise<GenerationValue> | undefined
  const send = (): Promise<GenerationValue> => {
    const sent = readNow()
    const arrived = () => (onItsWay = undefined)
    onItsWay = sent.then(arrived, arrived)
    return sent
  }
  function read(): Promise<GenerationValue> {
    if (next) return next
    if (!onItsWay) return send()
    next = onItsWay.then(() => {
      next = undefined
      return send()
    })
    return next
  }
  return {
    key,
    isOwed: () => owed !== undefined,
    read: () => (owed ? undefined : read()),
    async move() {
      try {
        await setNew()
        clearTimeout(owed)
        owed = undefined
      } catch (error) {
        if (!owed) retry()
        throw toStorageError(error, 'Redis')
      }
    },
  }
}
