import { sql, type Kysely } from 'kysely'
import type { AccessLevel } from '../records.ts'
import type { ListingStore } from '../admin-types.ts'
import type { Sealer } from '../sealing/sealer.ts'
import type { Database } from './schema.ts'
import { toApp, toAuditEvent, toUser } from './rows.ts'

/** The read-only lists (ListingStore) on any Kysely dialect (SQLite, PostgreSQL). */
export function createListingStore(db: Kysely<Database>, sealer: Sealer) {
  return {
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
  } satisfies ListingStore
}
