import type { Kysely, Migration } from 'kysely'

/**
 * Existing accounts (docs/accounts.md): a person's e-mail address (how an upstream identity may be
 * matched to them), the links from an upstream identity to a person, and the sign-ins in progress
 * at an upstream provider or at the platform's own login page. Part of the one ordered list of
 * migrations.ts.
 */
export const ACCOUNT_MIGRATIONS: Record<string, Migration> = {
  '021-existing-accounts': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('users').addColumn('email', 'text').execute()
      // Lower case, unique: an address names one person at most (NULLs are never equal).
      await db.schema.alterTable('users').addColumn('email_lower', 'text').execute()
      await db.schema.createIndex('users_email_lower').on('users').column('email_lower').unique().execute()
      await db.schema
        .createTable('identity_links')
        // `<provider>:<subject>`, one key column (as `latchkey copy` pages by): provider ids have no colon.
        .addColumn('id', 'text', (c) => c.primaryKey())
        // The provider's id in the settings (`login` for login delegation) and its subject.
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('last_sign_in_at_ms', 'bigint')
        .execute()
      await db.schema.createIndex('identity_links_user').on('identity_links').column('user_id').execute()
      await db.schema
        .createTable('external_sign_ins')
        // The keyed hash of the `state` (OpenID Connect) or `login_challenge` (delegation) value.
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('provider', 'text', (c) => c.notNull())
        // The keyed hash of the random value in the browser's cookie that started it.
        .addColumn('browser_hash', 'text', (c) => c.notNull())
        // Where the browser goes back to once signed in (a path of this service).
        .addColumn('return_to', 'text', (c) => c.notNull())
        .addColumn('app_id', 'text')
        .addColumn('login_hint', 'text')
        .addColumn('force_login', 'integer', (c) => c.notNull())
        // Sealed: the PKCE verifier and the nonce of an OpenID Connect sign-in.
        .addColumn('secrets', 'text')
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        // JSON: the platform's answer to a login challenge (accepted with an identity, or rejected).
        .addColumn('outcome', 'text')
        .addColumn('used_at_ms', 'bigint')
        .execute()
      await db.schema.createIndex('external_sign_ins_expiry').on('external_sign_ins').column('expires_at_ms').execute()
    },
  },
}
