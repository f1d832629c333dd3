import { PostgresAdapter, sql, type Kysely } from 'kysely'
import type { AppPatch, AppStore, UserStore } from '../types.ts'
import type { Database } from './schema.ts'
import { atomicallyOn } from './transactions.ts'
import type { Sealer } from '../sealing/sealer.ts'
import { appNameKey, fromApp, fromUser, sealedKeys, toApp, toUser } from './rows.ts'
import { AppNameTakenError, EmailTakenError, OwnerAppLimitError, isUniqueViolation } from '../errors.ts'
import { findAppByConsumerKey, findAppById, findUserById } from './lookups.ts'

/** The unique index on users.email_lower of migration 021. */
const USER_EMAIL_INDEX = 'users_email_lower'

/** Users and apps on any Kysely dialect (SQLite, PostgreSQL). */
export function createUserStore(db: Kysely<Database>) {
  return {
    // `on conflict do nothing` rather than catching the violation: inside a unit of work on
    // PostgreSQL a failed statement aborts the whole transaction, so the unit could not go on.
    async create(user) {
      const result = await db.insertInto('users').values(fromUser(user)).onConflict((conflict) => conflict.doNothing()).executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
    },
    findById: (id) => findUserById(db, id),
    async findByScreenName(screenName) {
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('screen_name_lower', '=', screenName.toLowerCase())
        .executeTakeFirst()
      return row && toUser(row)
    },
    async findByEmail(email) {
      const row = await db.selectFrom('users').selectAll().where('email_lower', '=', email.toLowerCase()).executeTakeFirst()
      return row && toUser(row)
    },
    async list() {
      const rows = await db.selectFrom('users').selectAll().orderBy('id').execute()
      return rows.map(toUser)
    },
    async update(id, patch) {
      const columns = {
        ...(patch.name === undefined ? {} : { name: patch.name }),
        ...(patch.passwordHash === undefined ? {} : { password_hash: patch.passwordHash }),
        ...(patch.disabledAtMs === undefined ? {} : { disabled_at_ms: patch.disabledAtMs }),
        ...(patch.endSessions ? { session_generation: sql<number>`session_generation + 1` } : {}),
        ...(patch.email === undefined ? {} : { email: patch.email, email_lower: patch.email?.toLowerCase() ?? null }),
      }
      const update = db.updateTable('users').set(columns).where('id', '=', id)
      const conditional = patch.whenPasswordHash === undefined ? update : update.where('password_hash', '=', patch.whenPasswordHash)
      const query = Object.keys(columns).length === 0 ? db.selectFrom('users').selectAll().where('id', '=', id) : conditional.returningAll()
      const row = await query.executeTakeFirst().catch((error: unknown) => {
        throw isUniqueViolation(error, USER_EMAIL_INDEX, 'users.email_lower') ? new EmailTakenError('another person has this e-mail address', { cause: error }) : error
      })
      return row && toUser(row)
    },
  } satisfies UserStore
}

/** The unique index on (owner_id, name_key) of migration 008. */
export const APP_NAME_INDEX = 'apps_owner_name_key'

function patchColumns(patch: AppPatch) {
  const columns: Partial<Omit<ReturnType<typeof fromApp>, 'id'>> = {}
  if (patch.name !== undefined) {
    columns.name = patch.name
    columns.name_key = appNameKey(patch.name)
  }
  if (patch.description !== undefined) columns.description = patch.description
  if (patch.website !== undefined) columns.website = patch.website
  if (patch.callbackUrls !== undefined) columns.callback_urls = JSON.stringify(patch.callbackUrls)
  if (patch.accessLevel !== undefined) columns.access_level = patch.accessLevel
  if (patch.type !== undefined) columns.app_type = patch.type
  if (patch.isSignInEnabled !== undefined) columns.sign_in_enabled = patch.isSignInEnabled ? 1 : 0
  if (patch.signatureMethods !== undefined) columns.signature_methods = patch.signatureMethods.join(',')
  if (patch.isSuspended !== undefined) {
    columns.is_suspended = patch.isSuspended ? 1 : 0
    columns.suspended_by = patch.isSuspended ? (patch.suspendedBy ?? null) : null
  }
  if (patch.isResourceServer !== undefined) columns.is_resource_server = patch.isResourceServer ? 1 : 0
  return columns
}

/**
 * The app store. Its multi-statement writes (rotateKeys, delete) open a transaction of their own,
 * or, inside a unit of work (`isInUnit`), run in the unit's.
 */
export function createAppStore(db: Kysely<Database>, sealer: Sealer, options: { isInUnit?: boolean } = {}) {
  const atomically = atomicallyOn(db, options.isInUnit)
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
  return {
    // A taken id or consumer key, or a name the owner already uses, answers false (see UserStore.create).
    async create(app, options = {}) {
      const insert = async (conn: Kysely<Database>) => {
        const result = await conn.insertInto('apps').values(fromApp(app, sealer)).onConflict((conflict) => conflict.doNothing()).executeTakeFirst()
        return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
      }
      const { ownerMayHold } = options
      if (ownerMayHold === undefined) return insert(db)
      return atomically(async (tx) => {
        // SQLite writes one transaction at a time; on PostgreSQL two creates that did not see each
        // other's rows would both pass the count. A lock per owner, held until the commit, orders them.
        if (isPostgres) await sql`select pg_advisory_xact_lock(hashtextextended(${`latchkey apps of ${app.ownerId}`}, 0))`.execute(tx)
        const held = await tx.selectFrom('apps').select((eb) => eb.fn.countAll<number | string | bigint>().as('count')).where('owner_id', '=', app.ownerId).executeTakeFirstOrThrow()
        if (Number(held.count) >= ownerMayHold) throw new OwnerAppLimitError(`the owner already holds ${Number(held.count)} apps, the most allowed`)
        return insert(tx)
      })
    },
    findById: (id) => findAppById(db, sealer, id),
    findByConsumerKey: (consumerKey) => findAppByConsumerKey(db, sealer, consumerKey),
    async list() {
      const rows = await db.selectFrom('apps').selectAll().orderBy('id').execute()
      return rows.map((row) => toApp(row, sealer))
    },
    async update(id, patch, nowMs) {
      try {
        const row = await db
          .updateTable('apps')
          .set({ ...patchColumns(patch), updated_at_ms: nowMs })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst()
        return row && toApp(row, sealer)
      } catch (error) {
        if (isUniqueViolation(error, APP_NAME_INDEX, 'apps.owner_id, apps.name_key')) throw new AppNameTakenError(`the owner already has an app named ${patch.name}`, { cause: error })
        throw error
      }
    },
    async rotateKeys(id, rotation) {
      return atomically(async (tx) => {
        const current = await tx.selectFrom('apps').select(['consumer_key', 'consumer_secret']).where('id', '=', id).executeTakeFirst()
        if (!current) return undefined
        const row = await tx
          .updateTable('apps')
          .set({ ...sealedKeys(rotation.keys, sealer), updated_at_ms: rotation.nowMs })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow()
        await tx.deleteFrom('previous_consumer_keys').where('app_id', '=', id).execute()
        if (rotation.previousValidUntilMs !== undefined) {
          await tx
            .insertInto('previous_consumer_keys')
            .values({
              app_id: id,
              consumer_key: current.consumer_key,
              consumer_key_hash: sealer.index(sealer.open(current.consumer_key)),
              consumer_secret: current.consumer_secret,
              expires_at_ms: rotation.previousValidUntilMs,
            })
            .execute()
        }
        if (rotation.revokeTokens) {
          await tx.updateTable('request_tokens').set({ status: 'dead' }).where('app_id', '=', id).where('status', 'in', ['issued', 'authorized']).execute()
          for (const table of ['access_tokens', 'bearer_tokens'] as const) {
            await tx.updateTable(table).set({ revoked_at_ms: rotation.nowMs }).where('app_id', '=', id).where('revoked_at_ms', 'is', null).execute()
          }
        }
        return toApp(row, sealer)
      })
    },
    async delete(id) {
      return atomically(async (tx) => {
        // Its OAuth 1.0a and app-only tokens and its signature failures go by their foreign keys' cascade.
        const grants = tx.selectFrom('oauth2_grants').select('id').where('app_id', '=', id)
        await tx.deleteFrom('oauth2_tokens').where('grant_id', 'in', grants).execute()
        for (const table of ['oauth2_grants', 'oauth2_codes', 'oauth2_clients'] as const) {
          await tx.deleteFrom(table).where('app_id', '=', id).execute()
        }
        const result = await tx.deleteFrom('apps').where('id', '=', id).executeTakeFirst()
        return Number(result.numDeletedRows) > 0
      })
    },
  } satisfies AppStore
}
