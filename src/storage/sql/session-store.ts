import { sql, type Kysely, type Selectable } from 'kysely'
import type { BrowserSessionRecord } from '../records.ts'
import type { BrowserSessionStore } from '../types.ts'
import type { BrowserSessionsTable, Database } from './schema.ts'

function toSession(row: Selectable<BrowserSessionsTable>): BrowserSessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    generation: Number(row.generation),
    createdAtMs: Number(row.created_at_ms),
    lastSeenAtMs: Number(row.last_seen_at_ms),
    passwordAtMs: Number(row.password_at_ms),
    userAgent: row.user_agent,
    address: row.address,
    endedAtMs: row.ended_at_ms === null ? null : Number(row.ended_at_ms),
    ...(row.reveal_mark === null || row.reveal_until_ms === null ? {} : { reveal: { mark: row.reveal_mark, untilMs: Number(row.reveal_until_ms) } }),
  }
}

/** Browser sessions on any Kysely dialect (SQLite, PostgreSQL): every write is one statement. */
export function createBrowserSessionStore(db: Kysely<Database>) {
  const changed = (result: { numUpdatedRows: bigint }) => Number(result.numUpdatedRows) > 0
  return {
    async create(session) {
      await db
        .insertInto('browser_sessions')
        .values({
          id: session.id,
          user_id: session.userId,
          generation: session.generation,
          created_at_ms: session.createdAtMs,
          last_seen_at_ms: session.lastSeenAtMs,
          password_at_ms: session.passwordAtMs,
          user_agent: session.userAgent,
          address: session.address,
          ended_at_ms: session.endedAtMs,
          reveal_mark: null,
          reveal_until_ms: null,
        })
        .execute()
    },
    async findById(id) {
      const row = await db.selectFrom('browser_sessions').selectAll().where('id', '=', id).executeTakeFirst()
      return row && toSession(row)
    },
    async touch(id, nowMs) {
      return changed(await db.updateTable('browser_sessions').set({ last_seen_at_ms: nowMs }).where('id', '=', id).executeTakeFirst())
    },
    async confirmPassword(id, nowMs) {
      return changed(await db.updateTable('browser_sessions').set({ password_at_ms: nowMs }).where('id', '=', id).executeTakeFirst())
    },
    async end(id, userId, nowMs) {
      const result = await db
        .updateTable('browser_sessions')
        .set({ ended_at_ms: nowMs })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('ended_at_ms', 'is', null)
        .executeTakeFirst()
      return changed(result)
    },
    async endOthers(userId, keepId, nowMs) {
      const result = await db
        .updateTable('browser_sessions')
        .set({ ended_at_ms: nowMs })
        .where('user_id', '=', userId)
        .where('id', '!=', keepId)
        .where('ended_at_ms', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
    async endAll(userId) {
      return changed(
        await db
          .updateTable('users')
          .set({ session_generation: sql<number>`session_generation + 1` })
          .where('id', '=', userId)
          .executeTakeFirst(),
      )
    },
    async listOpen(userId) {
      const rows = await db
        .selectFrom('browser_sessions')
        .innerJoin('users', 'users.id', 'browser_sessions.user_id')
        .selectAll('browser_sessions')
        .where('browser_sessions.user_id', '=', userId)
        .where('browser_sessions.ended_at_ms', 'is', null)
        .whereRef('browser_sessions.generation', '=', 'users.session_generation')
        .orderBy('browser_sessions.last_seen_at_ms', 'desc')
        .orderBy('browser_sessions.id')
        .execute()
      return rows.map(toSession)
    },
    async markReveal(id, mark, untilMs) {
      return changed(await db.updateTable('browser_sessions').set({ reveal_mark: mark, reveal_until_ms: untilMs }).where('id', '=', id).executeTakeFirst())
    },
    async takeReveal(id, mark, nowMs) {
      const result = await db
        .updateTable('browser_sessions')
        .set({ reveal_mark: null, reveal_until_ms: null })
        .where('id', '=', id)
        .where('reveal_mark', '=', mark)
        .where('reveal_until_ms', '>', nowMs)
        .executeTakeFirst()
      return changed(result)
    },
    async deleteDead(userId, limits) {
      const current = db.selectFrom('users').select('session_generation').where('id', '=', userId)
      const result = await db
        .deleteFrom('browser_sessions')
        .where('user_id', '=', userId)
        .where((eb) =>
          eb.or([
            eb('ended_at_ms', 'is not', null),
            eb('generation', '!=', current),
            eb('created_at_ms', '<', limits.createdBeforeMs),
            eb('last_seen_at_ms', '<', limits.seenBeforeMs),
          ]),
        )
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  } satisfies BrowserSessionStore
}
