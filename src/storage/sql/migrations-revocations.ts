import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely'

/**
 * The revocation push (docs/revocation-push.md): the outbox of credential ends, the webhook
 * endpoints, each endpoint's deliveries and the one delivery lease. Part of the one ordered list of
 * migrations.ts.
 */
export const REVOCATION_MIGRATIONS: Record<string, Migration> = {
  '020-revocation-push': {
    async up(db: Kysely<any>) {
      const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
      await db.schema
        .createTable('revocation_events')
        // The outbox's order; event_id is the event's own id (a UUID).
        .addColumn('id', isPostgres ? 'bigserial' : 'integer', (c) => (isPostgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('event_id', 'text', (c) => c.notNull().unique())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .addColumn('app_id', 'text')
        .addColumn('user_id', 'text')
        .addColumn('credential_kind', 'text', (c) => c.notNull())
        .addColumn('credential_sha256', 'text')
        // 0 until the delivery loop has handed the event to every endpoint (a flag, not a cursor: on
        // PostgreSQL a lower seq can commit after a higher one).
        .addColumn('fanned', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      await db.schema.createIndex('revocation_events_unfanned').on('revocation_events').column('id').where(sql.ref('fanned'), '=', 0).execute()
      await db.schema.createIndex('revocation_events_at').on('revocation_events').column('at_ms').execute()
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('app_id', 'text')
        // Sealed: the HMAC key of every delivery's signature.
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        // Set once the receiver answered the CRC challenge: nothing is sent before.
        .addColumn('verified_at_ms', 'bigint')
        .addColumn('last_success_at_ms', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('last_error_at_ms', 'bigint')
        .execute()
      await db.schema
        .createTable('webhook_deliveries')
        // `<endpoint id>/<event's outbox id>`: one key column, as `latchkey copy` pages by.
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
        .addColumn('event_seq', 'bigint', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at_ms', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('webhook_deliveries_order').on('webhook_deliveries').columns(['endpoint_id', 'event_seq']).unique().execute()
      await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_seq').execute()
      await db.schema
        .createTable('revocation_lease')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        .execute()
    },
  },
}
