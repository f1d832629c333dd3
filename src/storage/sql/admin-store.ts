import { sql, type Kysely, type Selectable } from 'kysely'
import type { AccessLevel } from '../records.ts'
import type { AdminStore, AdminTokenRecord } from '../admin-types.ts'
import type { Sealer } from '../sealing/sealer.ts'
import type { AdminTokensTable, Database } from './schema.ts'
import { sealedKeys, toApp, toAuditEvent, toUser } from './rows.ts'
import { atomicallyOn } from './transactions.ts'

function toAdminToken(row: Selectable<AdminTokensTable>): AdminTokenRecord {
  return {
    id: row.id,
    name: row.name,
    createdAtMs: Number(row.created_at_ms),
    revokedAtMs: row.revoked_at_ms === null ? null : Number(row.revoked_at_ms),
  }
}

/**
 * The admin API's own queries on any Kysely dialect (SQLite, PostgreSQL). rotateKeys opens a
 * transaction of its own, or, inside a unit of work (`isInUnit`), runs in the unit's.
 */
export function createAdminStore(db: Kysely<Database>, sealer: Sealer, options: { isInUnit?: boolean } = {}) {
  const atomically = atomicallyOn(db, options.isInUnit)
  return {
    async createToken(record, token) {
      await db
        .insertInto('admin_tokens')
        .values({ id: record.id, name: record.name, token_hash: sealer.index(token), created_at_ms: record.createdAtMs, revoked_at_ms: null })
        .execute()
    },
    async findToken(token) {
      const row = await db.selectFrom('admin_tokens').selectAll().where('token_hash', '=', sealer.index(token)).executeTakeFirst()
      return row && toAdminToken(row)
    },
    async listTokens() {
      const rows = await db.selectFrom('admin_tokens').selectAll().orderBy('id').execute()
      return rows.map(toAdminToken)
    },
    async revokeToken(id, nowMs) {
      const result = await db
        .updateTable('admin_tokens')
        .set({ revoked_at_ms: nowMs })
        .where('id', '=', id)
        .where('revoked_at_ms', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },
    async updateUser(id, patch) {
      const columns = {
        ...(patch.name === undefined ? {} : { name: patch.name }),
        ...(patch.passwordHash === undefined ? {} : { password_hash: patch.passwordHash }),
        ...(patch.disabledAtMs === undefined ? {} : { disabled_at_ms: patch.disabledAtMs }),
        ...(patch.endSessions ? { session_generation: sql<number>`session_generation + 1` } : {}),
      }
      const query = Object.keys(columns).length === 0 ? db.selectFrom('users').selectAll().where('id', '=', id) : db.updateTable('users').set(columns).where('id', '=', id).returningAll()
      const row = await query.executeTakeFirst()
      return row && toUser(row)
    },
    async revokeAuthorization(userId, appId, nowMs) {
      const result = await db
        .updateTable('access_tokens')
        .set({ revoked_at_ms: nowMs })
        .where('user_id', '=', userId)
        .where('app_id', '=', appId)
        .where('revoked_at_ms', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
    async rotateKeys(appId, rotation) {
      return atomically(async (tx) => {
        const current = await tx.selectFrom('apps').select(['consumer_key', 'consumer_secret']).where('id', '=', appId).executeTakeFirst()
        if (!current) return undefined
        const row = await tx
          .updateTable('apps')
          .set({ ...sealedKeys(rotation.keys, sealer), updated_at_ms: rotation.nowMs })
          .where('id', '=', appId)
          .returningAll()
          .executeTakeFirstOrThrow()
        await tx.deleteFrom('previous_consumer_keys').where('app_id', '=', appId).execute()
        if (rotation.previousValidUntilMs !== undefined) {
          await tx
            .insertInto('previous_consumer_keys')
            .values({
              app_id: appId,
              consumer_key: current.consumer_key,
              consumer_key_hash: sealer.index(sealer.open(current.consumer_key)),
              consumer_secret: current.consumer_secret,
              expires_at_ms: rotation.previousValidUntilMs,
            })
            .execute()
        }
        if (rotation.revokeTokens) {
          await tx.updateTable('request_tokens').set({ status: 'dead' }).where('app_id', '=', appId).where('status', 'in', ['issued', 'authorized']).execute()
          for (const table of ['access_tokens', 'bearer_tokens'] as const) {
            await tx.updateTable(table).set({ revoked_at_ms: rotation.nowMs }).where('app_id', '=', appId).where('revoked_at_ms', 'is', null).execute()
          }
        }
        return toApp(row, sealer)
      })
    },
    async findPreviousKey(consumerKey) {
      const row = await db.selectFrom('previous_consumer_keys').selectAll().where('consumer_key_hash', '=', sealer.index(consumerKey)).executeTakeFirst()
      return (
        row && {
          appId: row.app_id,
          consumerKey: sealer.open(row.consumer_key),
          consumerSecret: sealer.open(row.consumer_secret),
          expiresAtMs: Number(row.expires_at_ms),
        }
      )
    },
    async usersPage({ limit, afterId, screenName }) {
      let query = db.selectFrom('users').selectAll()
      if (afterId !== undefined) query = query.where('id', '>', afterId)
      if (screenName !== undefined) query = query.where('screen_name_lower', '=', screenName.toLowerCase())
      const rows = await query.orderBy('id').limit(limit).execute()
      return rows.map(toUser)
    },
    async appsPage({ limit, afterId, ownerId }) {
      let query = db.selectFrom('apps').selectAll()
      if (afterId !== undefined) query = query.where('id', '>', afterId)
      if (ownerId !== undefined) query = query.where('owner_id', '=', ownerId)
      const rows = await query.orderBy('id').limit(limit).execute()
      return rows.map((row) => toApp(row, sealer))
    },
    async auditPage(filter) {
      let query = db.selectFrom('audit_events').selectAll()
      if (filter.appId !== undefined) query = query.where('app_id', '=', filter.appId)
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId)
      if (filter.event !== undefined) query = query.where('event', '=', filter.event)
      if (filter.sinceMs !== undefined) query = query.where('at_ms', '>=', filter.sinceMs)
      if (filter.untilMs !== undefined) query = query.where('at_ms', '<', filter.untilMs)
      const before = filter.before
      if (before !== undefined) {
        query = query.where((eb) =>
          eb.or([eb('at_ms', '<', before.atMs), eb.and([eb('at_ms', '=', before.atMs), eb('id', '<', before.id)])]),
        )
      }
      const rows = await query.orderBy('at_ms', 'desc').orderBy('id', 'desc').limit(filter.limit).execute()
      return rows.map((row) => ({ ...toAuditEvent(row), id: Number(row.id) }))
    },
    async authorizations(userId) {
      const rows = await db
        .selectFrom('access_tokens')
        .innerJoin('apps', 'apps.id', 'access_tokens.app_id')
        .select([
          'apps.id as app_id',
          'apps.name as app_name',
          sql<string>`min(access_tokens.access_level)`.as('access_level'),
          sql<number | string>`min(access_tokens.created_at_ms)`.as('authorized_at_ms'),
        ])
        .where('access_tokens.user_id', '=', userId)
        .where('access_tokens.revoked_at_ms', 'is', null)
        .groupBy(['apps.id', 'apps.name'])
        .orderBy('apps.id')
        .execute()
      return rows.map((row) => ({
        appId: row.app_id,
        appName: row.app_name,
        accessLevel: row.access_level as AccessLevel,
        authorizedAtMs: Number(row.authorized_at_ms),
      }))
    },
    async recordSignInUnlock(key, atMs) {
      await db
        .insertInto('sign_in_unlocks')
        .values({ throttle_key: key, unlocked_at_ms: atMs })
        .onConflict((conflict) => conflict.column('throttle_key').doUpdateSet({ unlocked_at_ms: atMs }))
        .execute()
    },
    async signInUnlocks(keys) {
      if (keys.length === 0) return new Map()
      const rows = await db.selectFrom('sign_in_unlocks').selectAll().where('throttle_key', 'in', keys).execute()
      return new Map(rows.map((row) => [row.throttle_key, Number(row.unlocked_at_ms)]))
    },
  } satisfies AdminStore
}
