import type { Kysely } from 'kysely'
import type { Sealer } from '../sealing/sealer.ts'
import { isSealed } from '../sealing/sealer.ts'
import type { Database } from './schema.ts'

/** Every sealed column, with the hash column that finds its value, if any. */
export const SEALED_COLUMNS = [
  { table: 'apps', key: 'id', column: 'consumer_key', hash: 'consumer_key_hash' },
  { table: 'apps', key: 'id', column: 'consumer_secret', hash: undefined },
  { table: 'request_tokens', key: 'token_hash', column: 'secret', hash: undefined },
  { table: 'access_tokens', key: 'token', column: 'token', hash: 'token_hash' },
  { table: 'access_tokens', key: 'token', column: 'secret', hash: undefined },
  { table: 'bearer_tokens', key: 'token', column: 'token', hash: 'token_hash' },
  { table: 'previous_consumer_keys', key: 'app_id', column: 'consumer_key', hash: 'consumer_key_hash' },
  { table: 'previous_consumer_keys', key: 'app_id', column: 'consumer_secret', hash: undefined },
  // Null for a public client: neither sealed nor counted.
  { table: 'oauth2_clients', key: 'app_id', column: 'client_secret', hash: undefined },
  { table: 'oauth2_clients', key: 'app_id', column: 'previous_client_secret', hash: undefined },
  { table: 'webhook_endpoints', key: 'id', column: 'secret', hash: undefined },
] as const

export interface ResealProgress {
  resealed: number
  /** Rows still sealed under another key than the active one (0 when done). */
  remaining: number
}

/**
 * Re-seals every value not sealed under the active key (values written before sealing existed, or
 * under an older key after `keys rotate`), in small transactions so that the service keeps
 * answering, and fills hash columns that are empty. `onlyUnsealed` limits it to clear values, the
 * cheap check every start makes.
 */
export async function resealAll(db: Kysely<Database>, sealer: Sealer, options: { batchSize?: number; onlyUnsealed?: boolean } = {}): Promise<number> {
  const batchSize = options.batchSize ?? 200
  const prefix = `v1.${sealer.activeKeyId()}.`
  let total = 0
  for (const { table, key, column, hash } of SEALED_COLUMNS) {
    for (;;) {
      const dbAny = db as unknown as Kysely<Record<string, Record<string, string | null>>>
      let query = dbAny.selectFrom(table).select([key, column])
      query = options.onlyUnsealed ? query.where(column, 'not like', 'v1.%') : query.where(column, 'not like', `${prefix}%`)
      const rows = await query.limit(batchSize).execute()
      if (rows.length === 0) break
      await dbAny.transaction().execute(async (tx) => {
        for (const row of rows) {
          const stored = row[column] as string
          const plain = isSealed(stored) ? sealer.open(stored) : stored
          const update: Record<string, string> = { [column]: sealer.seal(plain) }
          if (hash) update[hash] = sealer.index(plain)
          // Only if nobody changed it meanwhile (a concurrent rotate-keys or revoke wins).
          await tx.updateTable(table).set(update).where(key, '=', row[key] as string).where(column, '=', stored).execute()
        }
      })
      total += rows.length
    }
  }
  return total
}

/** How many stored values are sealed under `keyId`. */
export async function countSealedUnder(db: Kysely<Database>, keyId: string): Promise<number> {
  const dbAny = db as unknown as Kysely<Record<string, Record<string, string | null>>>
  let count = 0
  for (const { table, column } of SEALED_COLUMNS) {
    const row = await dbAny
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(column, 'like', `v1.${keyId}.%`)
      .executeTakeFirst()
    count += Number(row?.n ?? 0)
  }
  return count
}
