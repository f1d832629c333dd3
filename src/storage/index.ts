// The storage as the entry points and the composition root see it: opening it, migrating it, the
// master keys' maintenance and the embedded database's lock. Nothing outside src/storage reaches into
// sql/, sqlite/, postgres/, redis/, memory/ or sealing/ (ARCHITECTURE.md's layer table, checked by
// test/docs/architecture-doc.test.ts).
import { openDatabase } from './open-stores.ts'
import { migrateToLatest } from './sql/migrations.ts'

export { openStorage, type StorageOptions } from './open-stores.ts'
export { copyDatabase, type CopyProgress } from './copy.ts'
export { withKeyMaintenance, type KeyStatus } from './key-maintenance.ts'
export { KeyringError, newKeyring, resolveKeyringSource, serializeKeyring, writeKeyringFile, type KeyringSource } from './sealing/keyring.ts'
export { DatabaseRefusedError, SealError, StorageUnavailableError } from './errors.ts'
export { POSTGRES_BACKUP_ADVICE, backupSqlite, inspectDatabaseFile, restoreSqlite, type BackupProgress, type DatabaseFileReport } from './sqlite/backup.ts'
export { takeServeLock, type ServeLock } from './sqlite/serve-lock.ts'
export { sqlitePath as sqlitePathOf } from './sqlite/open.ts'
export { isPostgresUrl } from './urls.ts'
export { createValidityCache, withCachedLookups } from './validity-cache.ts'
export { withGenerationMoves } from './generation-moves.ts'
export { guardStore, toStorageError } from './unavailable.ts'
export { outsideUnitsOnly } from './sql/transactions.ts'
export { STORE_NAMES, backendOf, type StoreName } from './store-methods.ts'
export type { Storage, StorageRuntime, Stores } from './types.ts'
export type { AppRecord, UserRecord } from './records.ts'
export type { AdminTokenRecord } from './admin-types.ts'

/** Applies the pending migrations to the database at this URL; answers the names of those applied. */
export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  const db = await openDatabase(databaseUrl)
  try {
    return await migrateToLatest(db)
  } finally {
    await db.destroy()
  }
}
