import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { CompiledQuery, sql, type Kysely } from 'kysely'
import { auditListQuery } from '../../../src/storage/sql/audit-store.ts'
import { migrateToLatest } from '../../../src/storage/sql/migrations.ts'
import type { Database } from '../../../src/storage/sql/schema.ts'
import { openPostgres } from '../../../src/storage/postgres/open.ts'
import { openSqlite } from '../../../src/storage/sqlite/open.ts'
import type { AuditFilter } from '../../../src/storage/types.ts'
import { SHARED_BACKENDS_SKIP, createTestSchema } from '../../helpers/backends.ts'

// Migration 004 left audit_events with three secondary indexes, the user one partial: every form of
// `latchkey audit` (no filter, --app, --user, --since, and their mixes) must still be answered
// through an index, newest first, rather than by reading the whole trail.

const FORMS: Array<[string, AuditFilter, string]> = [
  ['no filter', { limit: 100 }, 'audit_events_at'],
  ['--since', { sinceMs: 1, limit: 100 }, 'audit_events_at'],
  ['--app', { appId: '1', limit: 100 }, 'audit_events_app_at'],
  ['--app --since', { appId: '1', sinceMs: 1, limit: 100 }, 'audit_events_app_at'],
  ['--user', { userId: '1', limit: 100 }, 'audit_events_user_at_v2'],
  ['--user --since', { userId: '1', sinceMs: 1, limit: 100 }, 'audit_events_user_at_v2'],
  ['--app --user', { appId: '1', userId: '1', limit: 100 }, 'audit_events_'],
]

const explain = (db: Kysely<Database>, filter: AuditFilter, prefix: string) => {
  const { sql: text, parameters } = auditListQuery(db, filter).compile()
  return db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`${prefix} ${text}`, [...parameters]))
}

describe('audit_events indexes on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-audit-indexes-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('every form of latchkey audit searches an index that also gives the order; the user index holds only rows with a person', async () => {
    const db = openSqlite(join(dir, 'audit.sqlite'))
    try {
      await migrateToLatest(db)
      for (const [form, filter, index] of FORMS) {
        const plan = (await explain(db, filter, 'explain query plan')).rows.map((row) => String(row.detail))
        assert.equal(plan.length, 1, `${form}: ${plan.join('; ')}`)
        assert.match(plan[0] as string, new RegExp(`^(SEARCH|SCAN) audit_events USING INDEX ${index}`), form)
      }
      const { rows } = await sql<{ name: string; partial: number }>`select name, partial from pragma_index_list('audit_events') order by name`.execute(db)
      assert.deepEqual(rows.map((r) => [r.name, r.partial]), [
        ['audit_events_app_at', 0],
        ['audit_events_at', 0],
        ['audit_events_user_at_v2', 1],
      ])
    } finally {
      await db.destroy()
    }
  })
})

describe('audit_events indexes on PostgreSQL', { skip: SHARED_BACKENDS_SKIP }, () => {
  test('every form of latchkey audit can be answered through an index', async () => {
    const schema = await createTestSchema()
    const db = openPostgres(schema.url, { max: 1 })
    try {
      await migrateToLatest(db)
      await db.connection().execute(async (conn) => {
        // An empty table is read whole whatever its indexes: this shows whether an index could serve instead.
        await sql`set enable_seqscan = off`.execute(conn)
        for (const [form, filter] of FORMS) {
          const plan = (await explain(conn, filter, 'explain')).rows.map((row) => String(row['QUERY PLAN'])).join('\n')
          assert.doesNotMatch(plan, /Seq Scan/, `${form}:\n${plan}`)
          assert.match(plan, /Index.* (using|on) audit_events_\w+/, `${form}:\n${plan}`)
        }
      })
    } finally {
      await db.destroy()
      await schema.drop()
    }
  })
})
