import type { Kysely, Selectable } from 'kysely'
import type { AdminTokenRecord, AdminTokenStore, SignInUnlockStore } from '../admin-types.ts'
import type { Sealer } from '../sealing/sealer.ts'
import type { AdminTokensTable, Database } from './schema.ts'

function toAdminToken(row: Selectable<AdminTokensTable>): AdminTokenRecord {
  return {
    id: row.id,
    name: row.name,
    createdAtMs: Number(row.created_at_ms),
    revokedAtMs: row.revoked_at_ms === null ? null : Number(row.revoked_at_ms),
  }
}

/** The admin API's credentials on any Kysely dialect (SQLite, PostgreSQL), kept as keyed hashes. */
export function createAdminTokenStore(db: Kysely<Database>, sealer: Sealer) {
  return {
    async create(record, token) {
      await db
        .insertInto('admin_tokens')
        .values({ id: record.id, name: record.name, token_hash: sealer.index(token), created_at_ms: record.createdAtMs, revoked_at_ms: null })
        .execute()
    },
    async findByToken(token) {
      const row = await db.selectFrom('admin_tokens').selectAll().where('token_hash', '=', sealer.index(token)).executeTakeFirst()
      return row && toAdminToken(row)
    },
    async list() {
      const rows = await db.selectFrom('admin_tokens').selectAll().orderBy('id').execute()
      return rows.map(toAdminToken)
    },
    async revoke(id, nowMs) {
      const result = await db
        .updateTable('admin_tokens')
        .set({ revoked_at_ms: nowMs })
        .where('id', '=', id)
        .where('revoked_at_ms', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },
  } satisfies AdminTokenStore
}

/** The sign-in throttle's clearings on any Kysely dialect. */
export function createSignInUnlockStore(db: Kysely<Database>) {
  return {
    async record(key, atMs) {
      await db
        .insertInto('sign_in_unlocks')
        .values({ throttle_key: key, unlocked_at_ms: atMs })
        .onConflict((conflict) => conflict.column('throttle_key').doUpdateSet({ unlocked_at_ms: atMs }))
        .execute()
    },
    async latest(keys) {
      if (keys.length === 0) return new Map()
      const rows = await db.selectFrom('sign_in_unlocks').selectAll().where('throttle_key', 'in', keys).execute()
      return new Map(rows.map((row) => [row.throttle_key, Number(row.unlocked_at_ms)]))
    },
  } satisfies SignInUnlockStore
}
