import Sqlite from 'better-sqlite3'
import { openStorage } from '../../src/storage/open-stores.ts'
import type { KeyringSource } from '../../src/storage/sealing/keyring.ts'
import type { Stores } from '../../src/storage/types.ts'
import { testKeyring } from '../helpers/keys.ts'

/** Opens the stores of the SQLite file at `path` (migrated first), runs `work` on them, and closes them. */
export async function withStoresAt<T>(path: string, work: (stores: Stores) => Promise<T>, keyring: KeyringSource = testKeyring()): Promise<T> {
  const { stores, runtime } = await openStorage({ keyring, databaseUrl: path, settleNonceEpoch: false })
  try {
    return await work(stores)
  } finally {
    await runtime.close()
  }
}

/** `count` audit rows written straight into the SQLite file, in one transaction, each with about `detailBytes` of detail. */
export function insertAuditRows(path: string, count: number, detailBytes = 0): void {
  const db = new Sqlite(path)
  try {
    const insert = db.prepare("insert into audit_events (at_ms, event, detail) values (?, 'app.updated', ?)")
    db.transaction(() => {
      for (let i = 0; i < count; i++) insert.run(1_700_000_000_000 + i, JSON.stringify({ i, filler: 'x'.repeat(detailBytes) }))
    })()
  } finally {
    db.close()
  }
}
