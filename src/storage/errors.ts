/**
 * A store that cannot answer right now (database unreachable, nonce store full). The HTTP layer
 * answers 503 code 130 "Over capacity"; it is never the client's fault and never half-writes.
 */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError'
}

/**
 * A stored secret the master key cannot open: sealed under a key the keyring does not hold, or
 * changed at rest (it fails its tag). Thrown by the sealer (src/storage/sealing/sealer.ts) when a
 * record is read; the edges refuse the one credential it belongs to (403 code 1009), never a 500.
 */
export class SealError extends Error {
  override name = 'SealError'
}

/**
 * A write that would give an owner two apps of one name (compared without regard to case): the
 * unique index of migration 008 refused it. The domain answers 409 code 1008.
 */
export class AppNameTakenError extends Error {
  override name = 'AppNameTakenError'
}

/** A write that would give two people one e-mail address (compared without regard to case): the domain answers 409 code 1120. */
export class EmailTakenError extends Error {
  override name = 'EmailTakenError'
}

/**
 * A create refused because the owner already holds the most apps the caller allows; decided in the
 * insert's own transaction, one create per owner at a time, so concurrent creates cannot pass it.
 */
export class OwnerAppLimitError extends Error {
  override name = 'OwnerAppLimitError'
}

/**
 * A database Latchkey refuses to use or change, before anything changed: a backup, restore or copy
 * refused (the file exists, is not a Latchkey database, a server holds the database, the target is
 * not empty), or a PostgreSQL search_path naming no schema that exists. One line the CLI prints.
 */
export class DatabaseRefusedError extends Error {
  override name = 'DatabaseRefusedError'
}

/** Whether `error` is the database refusing a row that breaks the unique index `index` (PostgreSQL) on `columns` (SQLite). */
export function isUniqueViolation(error: unknown, index: string, columns: string): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown }
  if (code === '23505') return constraint === index
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes(columns)
}
