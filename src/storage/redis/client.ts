import { Redis } from 'ioredis'
import { StorageUnavailableError } from '../errors.ts'
import { redactUrl } from '../urls.ts'

/**
 * Fail fast, recover by itself: while Redis is down a command fails at once (no offline queue, no
 * retries of a command) or within `commandTimeout` if Redis hangs, and the client keeps reconnecting
 * in the background, so calls succeed again as soon as Redis is back, without reopening anything.
 * Commands issued in one turn of the event loop, or while the previous batch awaits its answers, go
 * out together in one write (auto-pipelining): under load many requests share a system call.
 */
export const REDIS_OPTIONS = {
  lazyConnect: true,
  enableAutoPipelining: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  connectTimeout: 1_000,
  commandTimeout: 1_000,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
} as const

/** A connected ioredis client; rejects with StorageUnavailableError when Redis cannot be reached now. */
export async function openRedis(url: string): Promise<Redis> {
  const client = new Redis(url, REDIS_OPTIONS)
  let lastError: Error | undefined
  // Without a listener ioredis prints every reconnection failure; the failures reach callers anyway.
  client.on('error', (error: Error) => {
    lastError = error
  })
  try {
    await client.connect()
  } catch (error) {
    client.disconnect()
    const reason = lastError?.message ?? (error as Error).message
    throw new StorageUnavailableError(`cannot reach Redis at ${redactUrl(url)}: ${reason}`, { cause: lastError ?? error })
  }
  return client
}

/** Closes the connection, politely if Redis answers, at once if not. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit()
      return
    } catch {
      // fall through: the connection is gone already
    }
  }
  client.disconnect()
}
