import type { Database as SqliteDatabase } from 'better-sqlite3'
import type { Generation } from '../types.ts'

/**
 * The embedded database's generation for the validity cache, from one statement: `data_version`
 * changes when another connection (the CLI, another process, a worker) commits, `total_changes()`
 * when this connection writes (its own commits leave its data_version alone). While this connection
 * holds a transaction, what it wrote is not committed yet: undefined, ask the database.
 */
export function sqliteGeneration(connection: SqliteDatabase): Generation {
  const probe = connection.prepare('select (select data_version from pragma_data_version), total_changes()').raw(true)
  let dataVersion = -1
  let changes = -1
  let generation = 0
  return () => {
    if (connection.inTransaction) return undefined
    const [version, changed] = probe.get() as [number, number]
    if (version !== dataVersion || changed !== changes) {
      dataVersion = version
      changes = changed
      generation++
    }
    return generation
  }
}
