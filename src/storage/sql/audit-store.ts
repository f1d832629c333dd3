import type { Kysely } from 'kysely'
import type { AuditStore } from '../types.ts'
import type { Database } from './schema.ts'
import { fromAuditEvent, toAuditEvent } from './rows.ts'

const DEFAULT_LIMIT = 100

/** The audit trail on any Kysely dialect (SQLite, PostgreSQL). */
export function createAuditStore(db: Kysely<Database>) {
  return {
    async record(event) {
      await db.insertInto('audit_events').values(fromAuditEvent(event)).execute()
    },
    async list(filter) {
      let query = db.selectFrom('audit_events').selectAll()
      if (filter.appId !== undefined) query = query.where('app_id', '=', filter.appId)
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId)
      if (filter.sinceMs !== undefined) query = query.where('at_ms', '>=', filter.sinceMs)
      const rows = await query
        .orderBy('at_ms', 'desc')
        .orderBy('id', 'desc')
        .limit(filter.limit ?? DEFAULT_LIMIT)
        .execute()
      return rows.map(toAuditEvent)
    },
  } satisfies AuditStore
}
