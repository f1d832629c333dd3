import { StorageUnavailableError } from './errors.ts'

/** Socket-level failures: the server is down, unreachable or dropped us. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
])

/**
 * PostgreSQL SQLSTATEs meaning "cannot answer now", not "your query is wrong": class 08 (connection
 * exception), 53300 too many connections, 57P01–57P03 shutdown / cannot connect now, 57014 query
 * cancelled (statement_timeout), 55P03 lock not available. Each statement is atomic: it either
 * happened whole or not at all (a connection lost during COMMIT leaves which one unknown).
 */
const POSTGRES_UNAVAILABLE = /^(08...|53300|57P0[1-3]|57014|55P03)$/

/** pg's, ioredis' and Kysely's own messages for a lost or refused connection (they carry no code). */
const CONNECTION_MESSAGES = [
  /^Connection terminated/i,
  /^timeout exceeded when trying to connect/i,
  /^Client has encountered a connection error/i,
  /^Query read timeout/i,
  /^Connection is closed/i,
  /^Stream isn't writeable/i,
  /^Command timed out/i,
  // A connection whose rollback failed (it was lost): the Migrator meets it on its way out.
  /^Postgres connection has been discarded/,
  /^Redis connection is not ready/i,
  /^Reached the max retries per request limit/i,
  // Redis at maxmemory with noeviction refuses writes until memory frees.
  /^OOM command not allowed/,
]

/** SQLite's "database is locked" after busy_timeout: another writer held it too long. */
const SQLITE_UNAVAILABLE = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED'])

/** True when `error` says the database or Redis cannot answer right now (rather than a bug or a bad query). */
export function isUnavailableError(error: unknown): boolean {
  if (error instanceof StorageUnavailableError) return true
  if (typeof error !== 'object' || error === null) return false
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown }
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SQLITE_UNAVAILABLE.has(code) || POSTGRES_UNAVAILABLE.test(code)) return true
  }
  if (name === 'MaxRetriesPerRequestError') return true
  if (typeof message === 'string' && CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) return true
  // Node's net errors for several addresses at once (happy eyeballs) come as an AggregateError.
  if (error instanceof AggregateError) return error.errors.some(isUnavailableError)
  // A Redis MULTI whose commands were refused (at maxmemory, say) fails as EXECABORT with their errors.
  const previous = (error as { previousErrors?: unknown }).previousErrors
  if (Array.isArray(previous)) return previous.some(isUnavailableError)
  return false
}

/** The message of an error, or its code (Node's AggregateError for a refused connection has no message). */
export function describe(error: unknown): string {
  const { message, code, errors, previousErrors } = error as { message?: string; code?: string; errors?: unknown[]; previousErrors?: unknown[] }
  if (Array.isArray(previousErrors) && previousErrors.length > 0) return describe(previousErrors[0])
  if (message) return message
  if (code) return code
  if (Array.isArray(errors) && errors.length > 0) return describe(errors[0])
  return 'unavailable'
}

/** Rethrows a connection-class error as StorageUnavailableError (503 code 130); anything else unchanged. */
export function toStorageError(error: unknown, what: string): unknown {
  if (error instanceof StorageUnavailableError) return error
  if (!isUnavailableError(error)) return error
  return new StorageUnavailableError(`${what} unavailable: ${describe(error)}`, { cause: error })
}

/**
 * Wraps every method of a store so that an outage of its backend surfaces as StorageUnavailableError
 * from the very call that needed it, and every other error passes through untouched.
 */
export function guardStore<T extends object>(store: T, what: string): T {
  const guarded: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(store)) {
    guarded[key] =
      typeof value === 'function'
        ? async (...args: unknown[]) => {
            try {
              return await (value as (...a: unknown[]) => unknown).apply(store, args)
            } catch (error) {
              throw toStorageError(error, what)
            }
          }
        : value
  }
  return guarded as T
}
