import { createHmac, timingSafeEqual } from 'node:crypto'
import Sqlite from 'better-sqlite3'
import { DatabaseRefusedError } from '../errors.ts'
import { deriveSecret, watchKeyring, type KeyringSource } from '../sealing/keyring.ts'
import { createSealer, isSealed } from '../sealing/sealer.ts'
import { SEALED_COLUMNS } from '../sql/reseal.ts'

/** Where a backup carries its seal: one row, in the file it seals, left out of what it seals. */
export const BACKUP_SEAL_TABLE = 'latchkey_backup_seal'

/** What `latchkey backup` seals a file with, and `restore` checks: this version's way of computing it. */
const SEAL_VERSION = 'hmac-sha256-v1'

/**
 * Seals the backup at `file`: an HMAC-SHA256 (keyed by HKDF from the master keyring, so only a
 * holder of the key can make or check one) over everything the file holds, its schema (tables,
 * indexes, triggers) and every row of every table, written into the file.
 */
export function sealBackup(file: string, keyring: KeyringSource): void {
  const db = new Sqlite(file, { fileMustExist: true })
  try {
    db.exec(`drop table if exists ${BACKUP_SEAL_TABLE}; create table ${BACKUP_SEAL_TABLE} (version text not null, mac text not null)`)
    db.prepare(`insert into ${BACKUP_SEAL_TABLE} (version, mac) values (?, ?)`).run(SEAL_VERSION, contentMac(db, keyring).toString('base64url'))
  } finally {
    db.close()
  }
}

/**
 * Refuses a backup that is not as `latchkey backup` made it under this master keyring (it carries
 * no seal, or anything in it changed since: a row, a column, a trigger), or that holds a sealed
 * value the keyring cannot open (made under a key since retired).
 */
export function checkBackupSeal(file: string, label: string, keyring: KeyringSource): void {
  const db = new Sqlite(file, { readonly: true, fileMustExist: true })
  try {
    const hasSeal = db.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(BACKUP_SEAL_TABLE)
    const seal = hasSeal ? (db.prepare(`select version, mac from ${BACKUP_SEAL_TABLE}`).all() as Array<{ version: string; mac: string }>) : []
    if (seal.length !== 1 || seal[0]!.version !== SEAL_VERSION) throw new DatabaseRefusedError(`${label} carries no seal of \`latchkey backup\`: only a file it made can be restored`)
    const expected = contentMac(db, keyring)
    const found = Buffer.from(seal[0]!.mac, 'base64url')
    if (found.length !== expected.length || !timingSafeEqual(found, expected)) {
      throw new DatabaseRefusedError(`${label} was changed after \`latchkey backup\` made it, or was made under another master key: its seal does not match`)
    }
    const unopened = unopenedValues(db, keyring)
    if (unopened.length > 0) {
      throw new DatabaseRefusedError(`${label} holds ${unopened.length} sealed values the master key cannot open (${unopened.slice(0, 3).join(', ')}): was it made under a key since retired?`)
    }
  } finally {
    db.close()
  }
}

/** The file's copy of a backup, ready to run: its seal taken out. */
export function removeBackupSeal(file: string): void {
  const db = new Sqlite(file, { fileMustExist: true })
  try {
    db.exec(`drop table if exists ${BACKUP_SEAL_TABLE}`)
  } finally {
    db.close()
  }
}

/**
 * The MAC of the file's schema and rows, but the seal's own table, in one fixed order (schema
 * entries by type and name, rows by rowid); each entry a JSON line, integers and blobs tagged so
 * that no two contents give the same text.
 */
function contentMac(db: Sqlite.Database, keyring: KeyringSource): Buffer {
  const mac = createHmac('sha256', deriveSecret(watchKeyring(keyring)(), 'backup seal'))
  const entries = db.prepare('select type, name, tbl_name, sql from sqlite_master where name <> ? order by type, name').raw().all(BACKUP_SEAL_TABLE) as Array<[string, string, string, string | null]>
  for (const entry of entries) {
    mac.update(`${JSON.stringify(entry)}\n`)
    if (entry[0] !== 'table') continue
    const rows = db.prepare(`select rowid, * from "${entry[1].replace(/"/g, '""')}" order by rowid`).raw().safeIntegers()
    for (const row of rows.iterate() as Iterable<unknown[]>) mac.update(`${JSON.stringify(row.map(tagged))}\n`)
  }
  return mac.digest()
}

function tagged(value: unknown): unknown {
  if (typeof value === 'bigint') return { integer: value.toString() }
  if (Buffer.isBuffer(value)) return { blob: value.toString('base64') }
  return value
}

/** Each sealed value the keyring cannot open, as `table.column`; columns an older schema lacks are skipped. */
function unopenedValues(db: Sqlite.Database, keyring: KeyringSource): string[] {
  const sealer = createSealer(watchKeyring(keyring), { cacheSize: 0 })
  const unopened: string[] = []
  for (const { table, column } of SEALED_COLUMNS) {
    const columns = (db.prepare('select name from pragma_table_info(?)').all(table) as Array<{ name: string }>).map((c) => c.name)
    if (!columns.includes(column)) continue
    for (const { value } of db.prepare(`select ${column} as value from ${table} where ${column} is not null`).iterate() as Iterable<{ value: string }>) {
      try {
        if (isSealed(value)) sealer.open(value)
      } catch {
        unopened.push(`${table}.${column}`)
      }
    }
  }
  return unopened
}
