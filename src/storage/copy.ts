import { sql, type Kysely } from 'kysely'
import { DatabaseRefusedError } from './errors.ts'
import { openDatabase } from './open-stores.ts'
import { migrateToLatest } from './sql/migrations.ts'
import { isPostgresUrl, redactUrl } from './urls.ts'

/**
 * Every table of the schema with its key, parents before children (the foreign keys), as `copy`
 * writes them. A test checks it names every table the migrations make, but the embedded database's
 * credential generation (its triggers count the copied rows in anew).
 */
export const COPIED_TABLES = [
  { table: 'users', key: 'id' },
  { table: 'apps', key: 'id' },
  { table: 'request_tokens', key: 'token_hash' },
  { table: 'access_tokens', key: 'token' },
  { table: 'bearer_tokens', key: 'token' },
  { table: 'previous_consumer_keys', key: 'app_id' },
  { table: 'admin_tokens', key: 'id' },
  { table: 'browser_sessions', key: 'id' },
  { table: 'signature_failures', key: 'id' },
  { table: 'audit_events', key: 'id' },
  { table: 'oauth2_clients', key: 'app_id' },
  { table: 'oauth2_grants', key: 'id' },
  { table: 'oauth2_codes', key: 'code_hash' },
  { table: 'oauth2_tokens', key: 'token_hash' },
  { table: 'sign_in_unlocks', key: 'throttle_key' },
  { table: 'revocation_events', key: 'id' },
  { table: 'webhook_endpoints', key: 'id' },
  { table: 'webhook_deliveries', key: 'id' },
  { table: 'revocation_lease', key: 'name' },
  { table: 'identity_links', key: 'id' },
  { table: 'external_sign_ins', key: 'id_hash' },
] as const

/** The tables whose key PostgreSQL numbers itself (bigserial): its sequence goes on after the copied rows. */
const NUMBERED = ['audit_events', 'signature_failures', 'revocation_events']

/** Rows read and written at a time: few enough for every driver's limit on values in one statement. */
const BATCH = 500

export type CopyProgress = (table: string, copied: number, total: number) => void

type AnyDb = Kysely<Record<string, Record<string, unknown>>>

/**
 * Copies every row of the database at `from` into the empty database at `to`, of the same kind or
 * the other (SQLite ↔ PostgreSQL), as stored: sealed secrets stay sealed under the same master key,
 * hashed tokens stay hashed, so every credential issued before works against the target. Both are
 * migrated first. The source is read in one transaction (a consistent snapshot, even under a running
 * server), the target written in one: a copy that fails leaves the target empty. Answers the rows
 * copied per table, checked against the target's own counts.
 */
export async function copyDatabase(from: string, to: string, onProgress?: CopyProgress): Promise<Record<string, number>> {
  if (from === to) throw new DatabaseRefusedError('the target is the configured database itself')
  const source = (await openDatabase(from)) as unknown as AnyDb
  const target = (await openDatabase(to)) as unknown as AnyDb
  try {
    await migrateToLatest(source)
    await migrateToLatest(target)
    await assertEmpty(target, to)
    const copied: Record<string, number> = {}
    // On SQLite a transaction's first read fixes its snapshot; PostgreSQL needs repeatable read for one.
    const reading = isPostgresUrl(from) ? source.transaction().setIsolationLevel('repeatable read') : source.transaction()
    await reading.execute(async (read) => {
      await target.transaction().execute(async (write) => {
        for (const { table, key } of COPIED_TABLES) copied[table] = await copyTable(read, write, table, key, onProgress)
        if (isPostgresUrl(to)) for (const table of NUMBERED) await continueNumbering(write, table)
      })
    })
    for (const { table } of COPIED_TABLES) {
      const landed = await countRows(target, table)
      if (landed !== copied[table]) throw new Error(`copy: ${table} holds ${landed} rows in the target, ${copied[table]} were copied`)
    }
    return copied
  } finally {
    await Promise.all([source.destroy(), target.destroy()])
  }
}

async function countRows(db: AnyDb, table: string): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

async function assertEmpty(db: AnyDb, url: string): Promise<void> {
  for (const { table } of COPIED_TABLES) {
    const rows = await countRows(db, table)
    if (rows > 0) throw new DatabaseRefusedError(`the target ${isPostgresUrl(url) ? redactUrl(url) : url} is not empty (${table} holds ${rows} rows): copy only into an empty database`)
  }
}

/** One table, a batch at a time in key order (so that a table of millions never sits in memory); how many rows. */
async function copyTable(read: AnyDb, write: AnyDb, table: string, key: string, onProgress?: CopyProgress): Promise<number> {
  const total = await countRows(read, table)
  let copied = 0
  let after: unknown
  onProgress?.(table, 0, total)
  for (;;) {
    let query = read.selectFrom(table).selectAll().orderBy(key).limit(BATCH)
    if (after !== undefined) query = query.where(key, '>', after)
    const rows = await query.execute()
    if (rows.length === 0) break
    await write.insertInto(table).values(rows).execute()
    copied += rows.length
    after = rows.at(-1)![key]
    onProgress?.(table, copied, total)
  }
  return copied
}

async function continueNumbering(db: AnyDb, table: string): Promise<void> {
  await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(db)
}
