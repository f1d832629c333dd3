import type { CompiledQuery, Kysely } from 'kysely'
import type { AuditEventRecord } from '../records.ts'
import type { AuditFilter, AuditStore } from '../types.ts'
import type { Database } from './schema.ts'
import { fromAuditEvent, toAuditEvent } from './rows.ts'

const DEFAULT_LIMIT = 100
/** Rows deleted per statement when pruning: each statement holds the table's write lock only briefly. */
const DELETE_BATCH = 5000

/**
 * The query of AuditStore.list. Every form of it has an index (migrations 003 and 004): at_ms alone,
 * (app_id, at_ms) or (user_id, at_ms), each of which also gives the order (at_ms, then id).
 */
export function auditListQuery(db: Kysely<Database>, filter: AuditFilter) {
  let query = db.selectFrom('audit_events').selectAll()
  if (filter.appId !== undefined) query = query.where('app_id', '=', filter.appId)
  if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId)
  if (filter.sinceMs !== undefined) query = query.where('at_ms', '>=', filter.sinceMs)
  return query
    .orderBy('at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit ?? DEFAULT_LIMIT)
}

const COLUMNS = ['at_ms', 'event', 'app_id', 'user_id', 'address', 'detail'] as const
const compiledInserts = new WeakMap<Kysely<Database>, CompiledQuery>()

/**
 * The insert of one row, compiled once per database (or transaction) and run with each row's
 * values: nearly every call of the service records a row, and building the query anew cost more
 * than SQLite takes to insert it in a grouped commit.
 */
function insertRow(db: Kysely<Database>, event: AuditEventRecord) {
  const row = fromAuditEvent(event)
  let compiled = compiledInserts.get(db)
  if (!compiled) {
    compiled = db.insertInto('audit_events').values(row).compile()
    // Every column is given a value (null included), in this order: the values below follow it.
    if (!compiled.sql.includes(COLUMNS.map((c) => `"${c}"`).join(', ')) || compiled.parameters.length !== COLUMNS.length) {
      throw new Error(`unexpected audit insert: ${compiled.sql}`)
    }
    compiledInserts.set(db, compiled)
  }
  return db.executeQuery({ ...compiled, parameters: COLUMNS.map((c) => row[c]) })
}

/** The audit trail on any Kysely dialect (SQLite, PostgreSQL). */
export function createAuditStore(db: Kysely<Database>) {
  return {
    async record(event) {
      await insertRow(db, event)
    },
    async list(filter) {
      const rows = await auditListQuery(db, filter).execute()
      return rows.map(toAuditEvent)
    },
    async deleteBefore(beforeMs) {
      let deleted = 0
      for (;;) {
        const batch = db.selectFrom('audit_events').select('id').where('at_ms', '<', beforeMs).limit(DELETE_BATCH)
        const result = await db.deleteFrom('audit_events').where('id', 'in', batch).executeTakeFirst()
        const count = Number(result.numDeletedRows)
        deleted += count
        if (count < DELETE_BATCH) return deleted
      }
    },
  } satisfies AuditStore
}
