import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PostgresAdapter, sql } from 'kysely'
import { migrateToLatest } from '../../../src/storage/sql/migrations.ts'
import { freshDatabase } from './fresh-database.ts'
import { REDIS_GENERATION_TABLE } from '../../../src/storage/postgres/generation-home.ts'
import { GENERATION_TABLE } from '../../../src/storage/sqlite/generation.ts'

/**
 * The migrations give SQLite and PostgreSQL the same tables and the same named indexes, each on its
 * table (on this pass's database). Later migrations and operators refer to an index by its name
 * (`drop index`, the app name's unique violation on PostgreSQL), so a name is part of the schema.
 * The indexes a database makes for a primary key or a unique column by itself are not listed.
 */
const TABLES = [
  'access_tokens',
  'admin_tokens',
  'apps',
  'audit_events',
  'bearer_tokens',
  'browser_sessions',
  'external_sign_ins',
  'identity_links',
  'latchkey_migration_lock',
  'latchkey_migrations',
  'oauth2_clients',
  'oauth2_codes',
  'oauth2_grants',
  'oauth2_tokens',
  'previous_consumer_keys',
  'request_tokens',
  'revocation_events',
  'revocation_lease',
  'sign_in_unlocks',
  'signature_failures',
  'users',
  'webhook_deliveries',
  'webhook_endpoints',
]

const NAMED_INDEXES = [
  'access_tokens.access_tokens_one_live',
  'access_tokens.access_tokens_token_hash',
  'apps.apps_consumer_key_hash',
  'apps.apps_owner_name_key',
  'audit_events.audit_events_app_at',
  'audit_events.audit_events_at',
  'audit_events.audit_events_user_at_v2',
  'bearer_tokens.bearer_tokens_one_live',
  'bearer_tokens.bearer_tokens_token_hash',
  'browser_sessions.browser_sessions_user',
  'external_sign_ins.external_sign_ins_expiry',
  'identity_links.identity_links_user',
  'oauth2_codes.oauth2_codes_expiry',
  'oauth2_grants.oauth2_grants_app',
  'oauth2_grants.oauth2_grants_user',
  'oauth2_tokens.oauth2_tokens_grant',
  'oauth2_tokens.oauth2_tokens_live_by_grant',
  'request_tokens.request_tokens_expiry_v2',
  'revocation_events.revocation_events_at',
  'revocation_events.revocation_events_unfanned',
  'signature_failures.signature_failures_app_at',
  'users.users_email_lower',
  'webhook_deliveries.webhook_deliveries_event',
  'webhook_deliveries.webhook_deliveries_order',
]

test('the migrated database holds the same tables and named indexes on either backend', async () => {
  const { db, remove } = await freshDatabase()
  try {
    await migrateToLatest(db)
    const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
    const tables = isPostgres
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)
    // Where the credentials' generation is kept: SQLite's own counter (migration 017), PostgreSQL's
    // Redis (migration 018): each backend's alone.
    const generation = isPostgres ? REDIS_GENERATION_TABLE : GENERATION_TABLE
    assert.ok(tables.rows.some((r) => r.name === generation), generation)
    assert.deepEqual(tables.rows.map((r) => r.name).filter((name) => name !== generation).sort(), TABLES)
    const indexes = isPostgres
      ? await sql<{ name: string }>`select tablename || '.' || indexname as name from pg_indexes
          where schemaname = current_schema() and indexname not in (select conname from pg_constraint where connamespace = current_schema()::regnamespace)`.execute(db)
      : await sql<{ name: string }>`select tbl_name || '.' || name as name from sqlite_master where type = 'index' and name not like 'sqlite_autoindex_%'`.execute(db)
    assert.deepEqual(indexes.rows.map((r) => r.name).sort(), NAMED_INDEXES)
  } finally {
    await remove()
  }
})
