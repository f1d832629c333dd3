import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import Sqlite from 'better-sqlite3'
import { Kysely, SqliteDialect, type Driver, type SqliteDatabase } from 'kysely'
import { lookUpDirectly } from '../sql/prepared.ts'
import type { Database } from '../sql/schema.ts'
import { WAL_AUTOCHECKPOINT_PAGES, checkpointInBackground, type Checkpoints } from './checkpoints.ts'

/** `sqlite:relative/path`, `sqlite:///abs/path`, `sqlite::memory:` or a plain path → a file path. */
export function sqlitePath(url: string): string {
  if (!url.startsWith('sqlite:')) return url
  const rest = url.slice('sqlite:'.length)
  return rest.startsWith('//') ? rest.slice(2) : rest
}

/**
 * Room for the pages a busy database reads again and again. A million tokens make indexes of tens
 * of MB (shape 5 of the benchmark: 10^6 tokens, 10^5 apps): with SQLite's page cache alone (16 MB
 * in better-sqlite3) their pages were read again through pread. Memory-mapped, the file's pages are
 * the kernel's page cache, shared by every connection and process and given back under memory
 * pressure; only what is touched is resident. The page cache stays for written pages.
 */
const MMAP_BYTES = 1024 * 1024 * 1024
const CACHE_KIB = 64 * 1024
/** After a burst past the auto-checkpoint, the WAL file is cut back to this when it starts over. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024

/**
 * Opens (creating the folder and file if needed) the embedded database. WAL with
 * synchronous=NORMAL survives a process crash without losing a committed write; checkpoints run
 * in the background (checkpoints.ts), with the auto-checkpoint raised to bound the WAL.
 */
export function openSqlite(url: string): Kysely<Database> {
  const path = sqlitePath(url)
  if (path !== ':memory:' && path !== '') createOwnerOnly(path)
  const sqlite = new Sqlite(path)
  const journalMode = sqlite.pragma('journal_mode = WAL', { simple: true })
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma(`cache_size = -${CACHE_KIB}`)
  sqlite.pragma(`mmap_size = ${MMAP_BYTES}`)
  sqlite.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`)
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`)
  const checkpoints = journalMode === 'wal' ? checkpointInBackground(path) : undefined
  const db = new Kysely<Database>({ dialect: new CheckpointedSqliteDialect(withStatementCache(sqlite), checkpoints) })
  lookUpDirectly(db, sqlite)
  return db
}

/**
 * A new database file (and folder) readable by its owner only, whatever the umask: SQLite gives its
 * -wal and -shm the database's mode. An existing file keeps the mode it has.
 */
function createOwnerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  closeSync(openSync(path, 'a', 0o600))
}

/**
 * SQLite whose destroy() also waits for the checkpoint worker to close its connection: Kysely's own
 * driver closes the database without awaiting anything, and a worker still holding the file could
 * write its -wal/-shm again while the caller removes the folder (ENOTEMPTY).
 */
class CheckpointedSqliteDialect extends SqliteDialect {
  readonly #checkpoints: Checkpoints | undefined
  constructor(database: SqliteDatabase, checkpoints: Checkpoints | undefined) {
    super({ database })
    this.#checkpoints = checkpoints
  }

  override createDriver(): Driver {
    const driver = super.createDriver()
    const checkpoints = this.#checkpoints
    return new Proxy(driver, {
      get(target, property) {
        if (property === 'destroy') {
          return async () => {
            await checkpoints?.stop()
            await target.destroy()
          }
        }
        const value: unknown = Reflect.get(target, property, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  }
}

/** Distinct SQL texts kept prepared; the stores use a few dozen. */
const STATEMENT_CACHE_SIZE = 512

/**
 * better-sqlite3 with each statement prepared once per SQL text: Kysely's driver prepares on every
 * query, a large share of a signed request's cost (bench shape 1). Statements are used
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
