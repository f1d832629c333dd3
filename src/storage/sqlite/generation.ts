import type { Database as SqliteDatabase } from 'better-sqlite3'
import type { Generation } from '../types.ts'

/**
 * The embedded database's generation for the validity cache: the counter that every write to a
 * table the cached lookups read raises in its own transaction, whichever connection made it (the
 * CLI, another process, a worker; migration 017-credential-generation). Audit rows, request tokens
 * and sessions do not move it. While this connection holds a transaction, what it wrote is not
 * committed yet: undefined, ask the database.
 */
/** The counter's table: bookkeeping of one database, not data (backup reports and copy leave it out). */
export const GENERATION_TABLE = 'credential_generation'

export function sqliteGeneration(connection: SqliteDatabase): Generation {
  const probe = connection.prepare(`select value from ${GENERATION_TABLE} where id = 1`).pluck(true)
  return () => (connection.inTransaction ? undefined : (probe.get() as number))
}
