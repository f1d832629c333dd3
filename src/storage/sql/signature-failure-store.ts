import { PostgresAdapter, sql, type Kysely } from 'kysely'
import type { SignatureFailureReason } from '../records.ts'
import type { SignatureFailureStore } from '../types.ts'
import type { Database } from './schema.ts'
import { atomicallyOn } from './transactions.ts'

/**
 * The console's signature-failure log on any Kysely dialect (migration 007): one row per refused
 * request of a known app. Each write prunes its app in the same transaction, one writer per app at a
 * time, so an app never holds more than `keep` rows; an app that stops failing keeps its last rows,
 * which `recent` no longer shows once they are older than `maxAgeMs`.
 */
export function createSignatureFailureStore(db: Kysely<Database>) {
  const atomically = atomicallyOn(db)
  // SQLite runs one write at a time anyway; on PostgreSQL two writes that did not see each other's
  // rows would each keep `keep` and leave more. A lock per app, held until the commit, orders them.
  const oneWriterPerApp = db.getExecutor().adapter instanceof PostgresAdapter
  return {
    async record(appId, failure, bounds) {
      await atomically(async (tx) => {
        if (oneWriterPerApp) await sql`select pg_advisory_xact_lock(hashtextextended(${`latchkey signature_failures ${appId}`}, 0))`.execute(tx)
        await tx
          .insertInto('signature_failures')
          .values({
            app_id: appId,
            at_ms: failure.atMs,
            method: failure.method,
            url: failure.url,
            reason: failure.reason,
            base_string: failure.baseString ?? null,
            parameters: failure.parameters ?? null,
          })
          .execute()
        await tx
          .deleteFrom('signature_failures')
          .where('app_id', '=', appId)
          .where((eb) =>
            eb.or([
              eb('at_ms', '<=', failure.atMs - bounds.maxAgeMs),
              eb(
                'id',
                'not in',
                eb.selectFrom('signature_failures').select('id').where('app_id', '=', appId).orderBy('at_ms', 'desc').orderBy('id', 'desc').limit(bounds.keep),
              ),
            ]),
          )
          .execute()
      })
    },
    async recent(appId, nowMs, bounds) {
      const rows = await db
        .selectFrom('signature_failures')
        .selectAll()
        .where('app_id', '=', appId)
        .where('at_ms', '>', nowMs - bounds.maxAgeMs)
        .orderBy('at_ms', 'desc')
        .orderBy('id', 'desc')
        .limit(bounds.keep)
        .execute()
      return rows.map((row) => ({
        atMs: Number(row.at_ms),
        method: row.method,
        url: row.url,
        reason: row.reason as SignatureFailureReason,
        ...(row.base_string === null ? {} : { baseString: row.base_string }),
        ...(row.parameters === null ? {} : { parameters: row.parameters }),
      }))
    },
  } satisfies SignatureFailureStore
}
