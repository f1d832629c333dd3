import { Migrator, PostgresAdapter, SqliteAdapter, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely'
import { DatabaseRefusedError } from '../errors.ts'
import { ACCOUNT_MIGRATIONS } from './migrations-accounts.ts'
import { OAUTH2_USER_MIGRATIONS } from './migrations-oauth2-user.ts'
import { REVOCATION_MIGRATIONS } from './migrations-revocations.ts'

/**
 * Versioned, forward-only migrations, written once with Kysely's schema builder so that SQLite and
 * PostgreSQL get the same tables (but for the embedded database's credential generation, 017).
 * Applied on every start and by `latchkey migrate`.
 */
const MIGRATIONS: Record<string, Migration> = {
  '001-registry-and-tokens': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('screen_name', 'text', (c) => c.notNull())
        .addColumn('screen_name_lower', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('apps')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('website', 'text', (c) => c.notNull())
        .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('consumer_key', 'text', (c) => c.notNull().unique())
        .addColumn('consumer_secret', 'text', (c) => c.notNull())
        .addColumn('callback_urls', 'text', (c) => c.notNull())
        .addColumn('access_level', 'text', (c) => c.notNull())
        .addColumn('app_type', 'text', (c) => c.notNull())
        .addColumn('sign_in_enabled', 'integer', (c) => c.notNull())
        .addColumn('signature_methods', 'text', (c) => c.notNull())
        .addColumn('is_suspended', 'integer', (c) => c.notNull())
        .addColumn('is_resource_server', 'integer', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('request_tokens')
        .addColumn('token', 'text', (c) => c.primaryKey())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
        .addColumn('callback', 'text', (c) => c.notNull())
        .addColumn('access_level', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.references('users.id'))
        .addColumn('verifier', 'text')
        .addColumn('verifier_failures', 'integer', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('request_tokens_expiry').on('request_tokens').column('expires_at_ms').execute()
      await db.schema
        .createTable('access_tokens')
        .addColumn('token', 'text', (c) => c.primaryKey())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('access_level', 'text', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at_ms', 'bigint')
        .execute()
      // One live access token per (app, user, level): the database keeps the one-of rule.
      await db.schema
        .createIndex('access_tokens_one_live')
        .on('access_tokens')
        .columns(['app_id', 'user_id', 'access_level'])
        .unique()
        .where(sql.ref('revoked_at_ms'), 'is', null)
        .execute()
      await db.schema
        .createTable('bearer_tokens')
        .addColumn('token', 'text', (c) => c.primaryKey())
        .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at_ms', 'bigint')
        .execute()
      await db.schema
        .createIndex('bearer_tokens_one_live')
        .on('bearer_tokens')
        .column('app_id')
        .unique()
        .where(sql.ref('revoked_at_ms'), 'is', null)
        .execute()
    },
  },
  // Secrets at rest (issue 6): values are sealed by the adapters and found through keyed hashes.
  // Request tokens are transient, so their table is rebuilt keyed by the hash (in-flight flows of
  // an older version must start again); the other tables gain a hash column that the re-seal
  // step run by openStores fills for rows written before.
  '002-sealed-secrets': {
    async up(db: Kysely<any>) {
      await db.schema.dropTable('request_tokens').execute()
      await db.schema
        .createTable('request_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
        .addColumn('callback', 'text', (c) => c.notNull())
        .addColumn('access_level', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.references('users.id'))
        .addColumn('verifier_hash', 'text')
        .addColumn('verifier_failures', 'integer', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('request_tokens_expiry_v2').on('request_tokens').column('expires_at_ms').execute()
      await db.schema.alterTable('apps').addColumn('consumer_key_hash', 'text').execute()
      await db.schema.createIndex('apps_consumer_key_hash').on('apps').column('consumer_key_hash').unique().execute()
      for (const table of ['access_tokens', 'bearer_tokens']) {
        await db.schema.alterTable(table).addColumn('token_hash', 'text').execute()
        await db.schema.createIndex(`${table}_token_hash`).on(table).column('token_hash').unique().execute()
      }
    },
  },
  // The audit trail (issue 6). No foreign keys: the history of an app or a person outlives them.
  '003-audit-events': {
    async up(db: Kysely<any>) {
      const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
      await db.schema
        .createTable('audit_events')
        .addColumn('id', isPostgres ? 'bigserial' : 'integer', (c) => (isPostgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('app_id', 'text')
        .addColumn('user_id', 'text')
        .addColumn('address', 'text')
        .addColumn('detail', 'text')
        .execute()
      await db.schema.createIndex('audit_events_at').on('audit_events').column('at_ms').execute()
      await db.schema.createIndex('audit_events_app_at').on('audit_events').columns(['app_id', 'at_ms']).execute()
      await db.schema.createIndex('audit_events_user_at').on('audit_events').columns(['user_id', 'at_ms']).execute()
    },
  },
  // Each `latchkey audit` form needs one of the three indexes of 003 (none: at_ms; --app: app_id,
  // at_ms; --user: user_id, at_ms), but the rows written most, request_token.issued and
  // bearer_token.issued, have no person: the user index now leaves them out, so those inserts
  // touch three B-trees instead of four. `user_id = ?` implies `user_id is not null`, so --user
  // still finds its rows through the index.
  '004-audit-user-index-partial': {
    async up(db: Kysely<any>) {
      await db.schema.dropIndex('audit_events_user_at').execute()
      await db.schema
        .createIndex('audit_events_user_at_v2')
        .on('audit_events')
        .columns(['user_id', 'at_ms'])
        .where(sql.ref('user_id'), 'is not', null)
        .execute()
    },
  },
  // The admin API (issue 13): its bearer tokens, kept only as keyed hashes, and previous key pairs.
  '005-admin-tokens': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('admin_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at_ms', 'bigint')
        .execute()
      // A disabled person cannot sign in, and their access tokens are refused while it lasts.
      await db.schema.alterTable('users').addColumn('disabled_at_ms', 'bigint').execute()
      // A rotated-out key pair that keeps working until expires_at_ms (rotate-keys with a grace period).
      await db.schema
        .createTable('previous_consumer_keys')
        .addColumn('app_id', 'text', (c) => c.primaryKey().references('apps.id').onDelete('cascade'))
        .addColumn('consumer_key', 'text', (c) => c.notNull())
        .addColumn('consumer_key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('consumer_secret', 'text', (c) => c.notNull())
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        .execute()
    },
  },
  // Browser sessions that can be ended (issue 19): a per-person generation that ends every session
  // at once (password change, disabling, sign-out everywhere), and one row per session, so that one
  // can be ended, listed, and held to its idle and absolute limits on every instance.
  '006-browser-sessions': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('users').addColumn('session_generation', 'integer', (c) => c.notNull().defaultTo(0)).execute()
      await db.schema
        .createTable('browser_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('generation', 'integer', (c) => c.notNull())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('last_seen_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('password_at_ms', 'bigint', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('ended_at_ms', 'bigint')
        .execute()
      await db.schema.createIndex('browser_sessions_user').on('browser_sessions').column('user_id').execute()
    },
  },
  // The console's signature-failure log (issue 14), shared
  // by every instance: the last FAILURES_KEPT per app, none older than a day (the store prunes as it writes).
  '007-signature-failures': {
    async up(db: Kysely<any>) {
      const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
      await db.schema
        .createTable('signature_failures')
        .addColumn('id', isPostgres ? 'bigserial' : 'integer', (c) => (isPostgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('base_string', 'text')
        .execute()
      await db.schema.createIndex('signature_failures_app_at').on('signature_failures').columns(['app_id', 'at_ms', 'id']).execute()
    },
  },
  // An owner's app names are unique without regard to case: a unique index instead of a read before
  // the write, so two concurrent creates cannot both win. Existing duplicates (possible before this
  // migration) are renamed first: the oldest app of a name keeps it, each later one becomes
  // `<name> (<app id>)`, with an `app.updated` audit row saying so (docs/audit.md).
  '008-app-name-unique': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('apps').addColumn('name_key', 'text').execute()
      // One statement for the usual case; the loop below writes only renamed apps and names the
      // database lowers differently from JavaScript (SQLite's lower() folds ASCII only).
      await sql`update apps set name_key = lower(name)`.execute(db)
      const apps: Array<{ id: string; owner_id: string; name: string; name_key: string }> = await db
        .selectFrom('apps')
        .select(['id', 'owner_id', 'name', 'name_key'])
        .orderBy('created_at_ms')
        .orderBy('id')
        .execute()
      const keyOf = (ownerId: string, name: string) => `${ownerId}\n${name.toLowerCase()}`
      // Original names are never handed to a renamed app, so a later app keeps its own.
      const taken = new Set(apps.map((app) => keyOf(app.owner_id, app.name)))
      const kept = new Set<string>()
      for (const app of apps) {
        let name = app.name
        if (kept.has(keyOf(app.owner_id, name))) {
          // The first try is always made: the original name is both kept (the if) and taken.
          for (let n = 0; kept.has(keyOf(app.owner_id, name)) || taken.has(keyOf(app.owner_id, name)); n++) {
            const suffix = n === 0 ? ` (${app.id})` : ` (${app.id}-${n})`
            name = `${app.name.slice(0, 64 - suffix.length)}${suffix}`
          }
          await db
            .insertInto('audit_events')
            .values({
              at_ms: Date.now(),
              event: 'app.updated',
              app_id: app.id,
              user_id: app.owner_id,
              address: null,
              detail: JSON.stringify({ fields: ['name'], via: 'migration 008-app-name-unique', previous_name: app.name, name }),
            })
            .execute()
        }
        kept.add(keyOf(app.owner_id, name))
        // Renamed (a new name has a new key), or a name SQLite's lower() folded otherwise.
        if (name.toLowerCase() !== app.name_key) {
          await db.updateTable('apps').set({ name, name_key: name.toLowerCase() }).where('id', '=', app.id).execute()
        }
      }
      await db.schema.createIndex('apps_owner_name_key').on('apps').columns(['owner_id', 'name_key']).unique().execute()
    },
  },
  // Failures kept before their URLs and base strings were masked may hold tokens, verifiers and
  // PLAINTEXT signatures (the secrets): they go. The log is a day's diagnostics; new ones are masked.
  '009-signature-failures-masked': {
    async up(db: Kysely<any>) {
      await db.deleteFrom('signature_failures').execute()
    },
  },
  // Who suspended an app: only an operator lifts an operator's suspension. Apps suspended before
  // this migration count as the operator's (the safe side: their owner can no longer lift it).
  '010-suspended-by': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('apps').addColumn('suspended_by', 'text').execute()
      await db.updateTable('apps').set({ suspended_by: 'operator' }).where('is_suspended', '=', 1).execute()
    },
  },
  // A consumer secret to show once in a browser session: marked on the session's row and taken by a
  // conditional update, so a copy of a cookie cannot show it again.
  '011-session-reveal': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('browser_sessions').addColumn('reveal_mark', 'text').execute()
      await db.schema.alterTable('browser_sessions').addColumn('reveal_until_ms', 'bigint').execute()
    },
  },
  // Where each parameter of a refused request came from (header, query, body), names only.
  '012-failure-parameters': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('signature_failures').addColumn('parameters', 'text').execute()
    },
  },
  // OAuth 2.0 user context: each app's client, authorization codes, grants and their tokens.
  ...OAUTH2_USER_MIGRATIONS,
  // On SQLite, a counter every write to a table the validity cache's lookups read raises in the
  // same transaction, from any connection (the CLI, a worker, another process): the cache's freshness
  // check (sqlite/generation.ts). Writes elsewhere (audit rows, request tokens, sessions) leave the
  // cache alone. Not on PostgreSQL: one row raised by every instance's token writes would serialize them.
  '017-credential-generation': {
    async up(db: Kysely<any>) {
      if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return
      await sql`create table credential_generation (id integer primary key check (id = 1), value integer not null)`.execute(db)
      await sql`insert into credential_generation (id, value) values (1, 0)`.execute(db)
      const tables = ['users', 'apps', 'access_tokens', 'bearer_tokens', 'previous_consumer_keys', 'oauth2_grants', 'oauth2_tokens']
      for (const table of tables) {
        for (const event of ['insert', 'update', 'delete']) {
          await sql
            .raw(`create trigger ${table}_${event}_generation after ${event} on ${table} begin update credential_generation set value = value + 1 where id = 1; end`)
            .execute(db)
        }
      }
    },
  },
  // On PostgreSQL, where the credentials' generation is kept when the instances share one in Redis
  // (postgres/generation-home.ts): a process without Redis then refuses to open the database, for
  // its writes would not reach the instances' caches.
  '018-redis-generation': {
    async up(db: Kysely<any>) {
      if (db.getExecutor().adapter instanceof SqliteAdapter) return
      await sql`create table redis_generation (id integer primary key check (id = 1), key_prefix text not null)`.execute(db)
    },
  },
  // The marker that proves a process's Redis is the one its serving instances use, and when one of
  // them last said it serves (postgres/generation-home.ts).
  '019-redis-generation-home': {
    async up(db: Kysely<any>) {
      if (db.getExecutor().adapter instanceof SqliteAdapter) return
      await sql`alter table redis_generation add column marker text, add column beat_at timestamptz`.execute(db)
    },
  },
  // The revocation push's outbox, endpoints, deliveries and lease.
  ...REVOCATION_MIGRATIONS,
  // Existing accounts: e-mail addresses, identity links, sign-ins in progress elsewhere.
  ...ACCOUNT_MIGRATIONS,
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS }

/** Every migration this version knows, in order: a database that ran another was made by a newer Latchkey. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort()

/**
 * On PostgreSQL, the schema the tables go to (the first of search_path). Kysely's Migrator looks for
 * its own tables in every schema of the database unless told which one, so a second Latchkey in
 * another schema of the same database would otherwise skip creating them.
 */
async function postgresSchema(db: Kysely<any>): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined
  const { rows } = await sql<{ schema: string | null; path: string }>`select current_schema() as schema, current_setting('search_path') as path`.execute(db)
  const schema = rows[0]?.schema
  if (!schema) {
    const path = rows[0]?.path ?? ''
    const first = path.split(',')[0]!.trim().replace(/^"|"$/g, '')
    throw new DatabaseRefusedError(
      `no schema of the search_path exists in this database (its search_path is "${path}"): create it (CREATE SCHEMA "${first}") or name another in the URL's options=-c search_path=… (docs/deployment.md)`,
    )
  }
  return schema
}

/**
 * Applies every pending migration; throws with the failing migration's name on error. Safe when
 * several instances start at once: on PostgreSQL the Migrator holds an advisory lock while it
 * migrates (in one transaction), so the others wait and then find nothing left to do.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'latchkey_migrations',
    migrationLockTableName: 'latchkey_migration_lock',
    migrationTableSchema: await postgresSchema(db),
    // Migrations are written on parallel branches (006 and 007/008 were): a database that already ran
    // a later one still gets an earlier one merged afterwards, instead of refusing to start.
    allowUnorderedMigrations: true,
  })
  const { error, results } = await migrator.migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error) throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message}`, { cause: error })
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
