import Sqlite, { type Database as SqliteDatabase } from 'better-sqlite3'
import type { Generation } from '../types.ts'

/** The counter's table: bookkeeping of one database, not data (backup reports and copy leave it out). */
export const GENERATION_TABLE = 'credential_generation'

export interface SqliteGeneration {
  read: Generation
  close(): void
}

/**
 * The embedded database's generation for the validity cache: the counter that every write to a
 * table the cached lookups read raises in its own transaction, whichever connection made it (the
 * CLI, another process, a worker; migration 017-credential-generation). Audit rows, request tokens
 * and sessions do not move it.
 *
 * Read on a read-only connection of its own, which never holds a transaction: the committed value
 * even while this process's connection holds one, so verified requests keep their cached answers
 * while writes are in flight. A kept answer is the committed state's (a lookup never sees a write that
 * is not committed: sql/prepared.ts), and a commit moves the value. An in-memory database has no
 * second connection: while a transaction is open its value cannot be told (undefined: ask the database).
 */
export function sqliteGeneration(connection: SqliteDatabase): SqliteGeneration {
  const query = `select value from ${GENERATION_TABLE} where id = 1`
  if (connection.memory) {
    const probe = connection.prepare(query).pluck(true)
    return { read: () => (connection.inTransaction ? undefined : (probe.get() as number)), close() {} }
  }
  const own = new Sqlite(connection.name, { readonly: true, fileMustExist: true })
  own.pragma('busy_timeout = 5000')
  const probe = own.prepare(query).pluck(true)
  return { read: () => probe.get() as number, close: () => own.close() }
}
