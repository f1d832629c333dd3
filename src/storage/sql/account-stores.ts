import type { Kysely, Selectable } from 'kysely'
import type {
  DelegationOutcome,
  ExternalSignInKind,
  ExternalSignInRecord,
  ExternalSignInStore,
  IdentityLinkRecord,
  IdentityLinkStore,
} from '../account-types.ts'
import type { Sealer } from '../sealing/sealer.ts'
import type { Database, ExternalSignInsTable, IdentityLinksTable } from './schema.ts'

/** Provider ids are letters, digits and hyphens: the colon cannot be part of one. */
const linkId = (provider: string, subject: string) => `${provider}:${subject}`

function toLink(row: Selectable<IdentityLinksTable>): IdentityLinkRecord {
  return {
    provider: row.provider,
    subject: row.subject,
    userId: row.user_id,
    createdAtMs: Number(row.created_at_ms),
    ...(row.last_sign_in_at_ms === null ? {} : { lastSignInAtMs: Number(row.last_sign_in_at_ms) }),
  }
}

/** Upstream identities linked to people, on any Kysely dialect. */
export function createIdentityLinkStore(db: Kysely<Database>): IdentityLinkStore {
  return {
    async create(link) {
      const result = await db
        .insertInto('identity_links')
        .values({ id: linkId(link.provider, link.subject), provider: link.provider, subject: link.subject, user_id: link.userId, created_at_ms: link.createdAtMs, last_sign_in_at_ms: link.lastSignInAtMs ?? null })
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
    },
    async find(provider, subject) {
      const row = await db.selectFrom('identity_links').selectAll().where('id', '=', linkId(provider, subject)).executeTakeFirst()
      return row && toLink(row)
    },
    async listForUser(userId) {
      const rows = await db.selectFrom('identity_links').selectAll().where('user_id', '=', userId).orderBy('created_at_ms').orderBy('provider').execute()
      return rows.map(toLink)
    },
    async touch(provider, subject, atMs) {
      await db.updateTable('identity_links').set({ last_sign_in_at_ms: atMs }).where('id', '=', linkId(provider, subject)).execute()
    },
    async remove(provider, subject) {
      const result = await db.deleteFrom('identity_links').where('id', '=', linkId(provider, subject)).executeTakeFirst()
      return Number(result.numDeletedRows) === 1
    },
  }
}

function toSignIn(row: Selectable<ExternalSignInsTable>, id: string, browser: string, sealer: Sealer): ExternalSignInRecord {
  // Optional fields only when set: a record reads back as it was written.
  return {
    id,
    kind: row.kind as ExternalSignInKind,
    provider: row.provider,
    browser,
    returnTo: row.return_to,
    ...(row.app_id === null ? {} : { appId: row.app_id }),
    ...(row.login_hint === null ? {} : { loginHint: row.login_hint }),
    forceLogin: row.force_login === 1,
    ...(row.secrets === null ? {} : { secrets: JSON.parse(sealer.open(row.secrets)) as ExternalSignInRecord['secrets'] }),
    createdAtMs: Number(row.created_at_ms),
    expiresAtMs: Number(row.expires_at_ms),
    ...(row.outcome === null ? {} : { outcome: JSON.parse(row.outcome) as DelegationOutcome }),
    ...(row.used_at_ms === null ? {} : { usedAtMs: Number(row.used_at_ms) }),
  }
}

/**
 * Sign-ins in progress elsewhere. Each change is one conditional statement, so two instances (or two
 * browsers) racing for one challenge see exactly one of them win.
 */
export function createExternalSignInStore(db: Kysely<Database>, sealer: Sealer): ExternalSignInStore {
  const select = (id: string) => db.selectFrom('external_sign_ins').selectAll().where('id_hash', '=', sealer.index(id))
  return {
    async create(record) {
      await db
        .insertInto('external_sign_ins')
        .values({
          id_hash: sealer.index(record.id),
          kind: record.kind,
          provider: record.provider,
          browser_hash: sealer.index(record.browser),
          return_to: record.returnTo,
          app_id: record.appId ?? null,
          login_hint: record.loginHint ?? null,
          force_login: record.forceLogin ? 1 : 0,
          secrets: record.secrets ? sealer.seal(JSON.stringify(record.secrets)) : null,
          created_at_ms: record.createdAtMs,
          expires_at_ms: record.expiresAtMs,
          outcome: record.outcome ? JSON.stringify(record.outcome) : null,
          used_at_ms: null,
        })
        .execute()
    },
    async find(id) {
      const row = await select(id).executeTakeFirst()
      return row && toSignIn(row, id, '', sealer)
    },
    async settle(id, outcome, nowMs) {
      const result = await db
        .updateTable('external_sign_ins')
        .set({ outcome: JSON.stringify(outcome) })
        .where('id_hash', '=', sealer.index(id))
        .where('outcome', 'is', null)
        .where('used_at_ms', 'is', null)
        .where('expires_at_ms', '>', nowMs)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
    async consume(id, browser, nowMs) {
      const result = await db
        .updateTable('external_sign_ins')
        .set({ used_at_ms: nowMs })
        .where('id_hash', '=', sealer.index(id))
        .where('used_at_ms', 'is', null)
        .where('expires_at_ms', '>', nowMs)
        .returningAll()
        .executeTakeFirst()
      if (!result) {
        const row = await select(id).executeTakeFirst()
        if (!row) return { refused: 'unknown' }
        return { refused: row.used_at_ms !== null ? 'used' : 'expired' }
      }
      if (result.browser_hash !== sealer.index(browser)) return { refused: 'other_browser' }
      // As it was before this use: the row returned is the updated one.
      return { record: toSignIn({ ...result, used_at_ms: null }, id, browser, sealer) }
    },
    async deleteExpired(beforeMs) {
      const result = await db.deleteFrom('external_sign_ins').where('expires_at_ms', '<', beforeMs).executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}
