// The storage as the CLI and the composition root see it: opening it, migrating it, and the master
// keys' maintenance. Nothing outside src/storage reaches into sql/, sqlite/, postgres/, redis/,
// memory/ or sealing/ (ESLint enforces it for src/cli).
import { openDatabase } from './open-stores.ts'
import { migrateToLatest } from './sql/migrations.ts'

export { openStorage, type StorageOptions } from './open-stores.ts'
export { withKeyMaintenance, type KeyStatus } from './key-maintenance.ts'
export { KeyringError, newKeyring, resolveKeyringSource, serializeKeyring, writeKeyringFile, type KeyringSource } from './sealing/keyring.ts'
export { StorageUnavailableError } from './errors.ts'
export type { Storage, StorageRuntime, Stores } from './types.ts'
export type { AppRecord, UserRecord } from './records.ts'
export type { AdminTokenRecord } from './admin-types.ts'

/** Applies the pending migrations to the database at this URL; answers the names of those applied. */
export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  const db = openDatabase(databaseUrl)
  try {
    return await migrateToLatest(db)
  } finally {
    await db.destroy()
  }
}
