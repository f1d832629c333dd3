import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Sqlite from 'better-sqlite3'
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely'
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
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) })
}

/** Distinct SQL texts kept prepared; the stores use a few dozen. */
const STATEMENT_CACHE_SIZE = 512

/**
 * better-sqlite3 with each statement prepared once per SQL text: Kysely's driver prepares on every
 * query, which was a fifth of a signed request's cost (docs/performance.md). Statements are used
 * synchronously and one at a time (Kysely holds one connection behind a mutex), so sharing them is
 * safe; SQLite re-prepares a statement by itself after a schema change.
 */
function withStatementCache(db: Sqlite.Database): SqliteDatabase {
  const statements = new Map<string, Sqlite.Statement>()
  return {
    close: () => db.close(),
    prepare(sql) {
      const cached = statements.get(sql)
      if (cached) return cached
      const statement = db.prepare(sql)
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string)
      statements.set(sql, statement)
      return statement
    },
  }
}
