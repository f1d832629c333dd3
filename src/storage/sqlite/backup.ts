import { chmodSync, closeSync, constants, copyFileSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import Sqlite from 'better-sqlite3'
import { DatabaseRefusedError } from '../errors.ts'
import type { KeyringSource } from '../sealing/keyring.ts'
import { MIGRATION_NAMES } from '../sql/migrations.ts'
import { BACKUP_SEAL_TABLE, checkBackupSeal, removeBackupSeal, sealBackup } from './backup-seal.ts'
import { GENERATION_TABLE } from './generation.ts'
import { sqlitePath } from './open.ts'
import { takeServeLock } from './serve-lock.ts'

/** What a SQLite file holds, as backup and restore report it. */
export interface DatabaseFileReport {
  file: string
  bytes: number
  /** The last migration it ran. */
  schemaVersion: string
  /** Rows per table (Latchkey's tables, not the migrator's). */
  rows: Record<string, number>
  /** A restore's: where the database it replaced is kept, until the next restore (none when there was none). */
  replacedKeptAs?: string
}

/** How far a backup is: pages of the database still to copy, of all. */
export type BackupProgress = (copied: number, total: number) => void

/** Pages copied per step of the online backup; one step holds the source's read lock. */
const PAGES_PER_STEP = 1000

/**
 * A consistent copy of the embedded database while a server may be running and writing: SQLite's
 * online backup API, a thousand pages a step so that writers wait at most one step. A write by
 * another connection between two steps makes SQLite start the copy over, so a step that leaves as
 * many pages to copy as the one before (or more) was a restart: from then on the whole database is
 * copied in one step, so a busy server cannot keep the backup from ending. The copy holds every
 * transaction committed before its last step began. Progress ends at all pages copied. The copy is
 * then sealed under the master keyring (backup-seal.ts), so that restore can tell it is untouched.
 */
export async function backupSqlite(databaseUrl: string, file: string, keyring: KeyringSource, onProgress?: BackupProgress): Promise<DatabaseFileReport> {
  const path = sqlitePath(databaseUrl)
  if (!existsSync(path)) throw new DatabaseRefusedError(`there is no database at ${path}`)
  createOwnerOnly(file)
  const source = new Sqlite(path, { fileMustExist: true, timeout: 5000 })
  try {
    let remainingBefore = Infinity
    let step = PAGES_PER_STEP
    const { totalPages } = await source.backup(file, {
      progress({ totalPages, remainingPages }) {
        if (remainingPages >= remainingBefore) step = totalPages
        remainingBefore = remainingPages
        onProgress?.(totalPages - remainingPages, totalPages)
        return step
      },
    })
    onProgress?.(totalPages, totalPages)
    selfContained(file)
    sealBackup(file, keyring)
  } catch (error) {
    rmSync(file, { force: true })
    throw error
  } finally {
    source.close()
  }
  return inspectDatabaseFile(file)
}

/**
 * Makes `file` empty, readable by its owner only, exclusively: an existing file, or a link (even one
 * pointing nowhere), is refused rather than followed. SQLite then writes into it and keeps its mode.
 */
function createOwnerOnly(file: string): void {
  let handle: number
  try {
    handle = openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new DatabaseRefusedError(`${file} exists: name a new file (a backup never overwrites one)`)
    throw error
  }
  closeSync(handle)
}

/**
 * The copy keeps the source's WAL mode, in which even a reader makes a -wal and a -shm beside it:
 * in rollback mode the backup is its one file, as a reader finds it.
 */
function selfContained(file: string): void {
  const db = new Sqlite(file, { fileMustExist: true })
  try {
    db.pragma('journal_mode = DELETE')
  } finally {
    db.close()
  }
}

/**
 * Checks that `file` is a whole Latchkey database this version can run: `PRAGMA integrity_check`
 * passes, it has Latchkey's migrations table, and it ran no migration this version does not know.
 */
export function inspectDatabaseFile(file: string): DatabaseFileReport {
  if (!existsSync(file)) throw new DatabaseRefusedError(`there is no file ${file}`)
  let db: Sqlite.Database
  try {
    db = new Sqlite(file, { readonly: true, fileMustExist: true })
  } catch (error) {
    throw new DatabaseRefusedError(`${file} is not a SQLite database (${(error as Error).message})`)
  }
  try {
    const integrity = readOrFail(db, file, () => db.pragma('integrity_check', { simple: true }))
    if (integrity !== 'ok') throw new DatabaseRefusedError(`${file} fails SQLite's integrity check: ${String(integrity)}`)
    const tables = (db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all() as Array<{ name: string }>).map((t) => t.name)
    if (!tables.includes('latchkey_migrations')) throw new DatabaseRefusedError(`${file} is not a Latchkey database (it has no latchkey_migrations table)`)
    const ran = (db.prepare('select name from latchkey_migrations order by name').all() as Array<{ name: string }>).map((m) => m.name)
    const unknown = ran.filter((name) => !MIGRATION_NAMES.includes(name))
    if (unknown.length > 0) throw new DatabaseRefusedError(`${file} was made by a newer Latchkey (migration ${unknown.join(', ')} is unknown to this version): upgrade first`)
    const rows: Record<string, number> = {}
    for (const table of tables.filter((t) => !t.startsWith('latchkey_migration') && t !== GENERATION_TABLE && t !== BACKUP_SEAL_TABLE)) {
      rows[table] = (db.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n
    }
    return { file, bytes: statSync(file).size, schemaVersion: ran.at(-1) ?? 'none', rows }
  } finally {
    db.close()
  }
}

function readOrFail<T>(db: Sqlite.Database, file: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    throw new DatabaseRefusedError(`${file} cannot be read as a SQLite database (${(error as Error).message})`)
  }
}

/**
 * Puts a backup in place of the embedded database, once `inspectDatabaseFile` accepts it. Refused
 * while a server holds the database (its serve lock): the file is copied beside the database, the
 * copy checked (its seal matches under the master keyring, every sealed value opens: nothing
 * replaced otherwise) and unsealed, the database being replaced kept beside it (`keepReplaced`), and
 * the copy renamed into its place, so the database is never half written. The next start migrates
 * it if it is older.
 */
export function restoreSqlite(databaseUrl: string, file: string, keyring: KeyringSource): DatabaseFileReport {
  const report = inspectDatabaseFile(file)
  const path = sqlitePath(databaseUrl)
  const lock = takeServeLock(databaseUrl)
  if (!lock) throw new DatabaseRefusedError(`a latchkey server is running on ${path}: stop it first`)
  const incoming = `${path}.restoring-${process.pid}`
  try {
    copyFileSync(file, incoming)
    // The copy has the backup's mode; what it holds was no more hidden there than for this moment.
    chmodSync(incoming, 0o600)
    // The copy is what is checked: the file could change after it was read.
    checkBackupSeal(incoming, file, keyring)
    removeBackupSeal(incoming)
    const kept = existsSync(path) ? keepReplaced(path) : undefined
    renameSync(incoming, path)
    return { ...report, file: path, ...(kept ? { replacedKeptAs: kept } : {}) }
  } finally {
    rmSync(incoming, { force: true })
    lock.release()
  }
}

/**
 * Moves the database a restore replaces to `<database>.before-restore` (the one an earlier restore
 * kept there goes), whole: its WAL checkpointed into it first, and moved beside it when that fails
 * (a damaged database), so what was written after the backup can still be read. No -wal or -shm is
 * left for the restored file to be read with.
 */
function keepReplaced(path: string): string {
  const kept = `${path}.before-restore`
  for (const old of [kept, `${kept}-wal`, `${kept}-shm`]) rmSync(old, { force: true })
  try {
    const db = new Sqlite(path, { fileMustExist: true })
    try {
      db.pragma('wal_checkpoint(TRUNCATE)')
    } finally {
      db.close()
    }
  } catch {
    // Not a database SQLite can open: kept as it is, with its -wal.
  }
  renameSync(path, kept)
  chmodSync(kept, 0o600)
  if (existsSync(`${path}-wal`)) renameSync(`${path}-wal`, `${kept}-wal`)
  rmSync(`${path}-shm`, { force: true })
  return kept
}

/** PostgreSQL's backups are PostgreSQL's own. */
export const POSTGRES_BACKUP_ADVICE =
  'on PostgreSQL, back up with pg_dump (pg_dump --format=custom --file=latchkey.dump "$LATCHKEY_DATABASE_URL") and restore with pg_restore: docs/storage.md'
