import { sql, type Kysely, type Migration } from 'kysely'

/**
 * The migrations of OAuth 2.0 user context (013–016): its clients, codes, grants and tokens. Part of
 * the one ordered list of migrations.ts.
 */
export const OAUTH2_USER_MIGRATIONS: Record<string, Migration> = {
  '013-oauth2-user-context': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('oauth2_clients')
        .addColumn('app_id', 'text', (c) => c.primaryKey().references('apps.id'))
        .addColumn('client_id', 'text', (c) => c.notNull().unique())
        .addColumn('client_type', 'text', (c) => c.notNull())
        .addColumn('client_secret', 'text')
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('oauth2_grants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at_ms', 'bigint')
        .execute()
      await db.schema.createIndex('oauth2_grants_user').on('oauth2_grants').columns(['user_id', 'app_id']).execute()
      await db.schema.createIndex('oauth2_grants_app').on('oauth2_grants').column('app_id').execute()
      await db.schema
        .createTable('oauth2_codes')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('code_challenge', 'text', (c) => c.notNull())
        .addColumn('challenge_method', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('redeemed_at_ms', 'bigint')
        .addColumn('grant_id', 'text')
        .execute()
      await db.schema.createIndex('oauth2_codes_expiry').on('oauth2_codes').column('expires_at_ms').execute()
      await db.schema
        .createTable('oauth2_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('grant_id', 'text', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('spent_at_ms', 'bigint')
        .execute()
      await db.schema.createIndex('oauth2_tokens_grant').on('oauth2_tokens').column('grant_id').execute()
    },
  },
  // A regenerated client secret's predecessor, kept (sealed) through a grace period.
  '014-oauth2-previous-secret': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('oauth2_clients').addColumn('previous_client_secret', 'text').execute()
      await db.schema.alterTable('oauth2_clients').addColumn('previous_secret_expires_at_ms', 'bigint').execute()
    },
  },
  // When an operator last cleared the sign-in throttle of an account or an address (latchkey user unlock).
  '015-sign-in-unlocks': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('sign_in_unlocks')
        .addColumn('throttle_key', 'text', (c) => c.primaryKey())
        .addColumn('unlocked_at_ms', 'bigint', (c) => c.notNull())
        .execute()
    },
  },
  // A refresh rotation ends the grant's live access tokens: found through the live ones only, so
  // its cost stays flat however long the grant's chain of spent tokens grows.
  '016-oauth2-live-tokens': {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('oauth2_tokens_live_by_grant').on('oauth2_tokens').columns(['grant_id', 'kind']).where(sql.ref('spent_at_ms'), 'is', null).execute()
    },
  },
}
