import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Sqlite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import type { Database } from '../sql/schema.ts'

/** `sqlite:relative/path`, `sqlite:///abs/path`, `sqlite::memory:` or a plain path → a file path. */
export function sqlitePath(url: string): string {
  if (!url.startsWith('sqlite:')) return url
  const rest = url.slice('sqlite:'.length)
  return rest.startsWith('//') ? rest.slice(2) : rest
}

/**
 * Opens (creating the folder and file if needed) the embedded database. WAL with
 * synchronous=NORMAL survives a process crash without losing a committed write.
 */
export function openSqlite(url: string): Kysely<Database> {
  const path = sqlitePath(url)
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = new Sqlite(path)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('foreign_keys = ON')
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) })
}
