import type { Kysely, Selectable } from 'kysely'
import type { AuthorizationCodeRecord, ClientType, OAuth2ClientRecord, OAuth2GrantRecord, OAuth2TokenRecord } from '../records.ts'
import type { Sealer } from '../sealing/sealer.ts'
import type { NewOAuth2Token, OAuth2ClientStore, OAuth2CodeStore, OAuth2GrantStore } from '../oauth2-types.ts'
import type { Database, OAuth2ClientsTable, OAuth2CodesTable, OAuth2GrantsTable, OAuth2TokensTable } from './schema.ts'
import { atomicallyOn } from './transactions.ts'

/** Ends a grant's live access tokens (a refresh rotation), found through the live ones only (migration 016). */
export const endLiveAccessTokens = (db: Kysely<Database>, grantId: string, nowMs: number) =>
  db.updateTable('oauth2_tokens').set({ spent_at_ms: nowMs }).where('grant_id', '=', grantId).where('kind', '=', 'access').where('spent_at_ms', 'is', null)

const splitScopes = (scopes: string): string[] => (scopes === '' ? [] : scopes.split(' '))

function toClient(row: Selectable<OAuth2ClientsTable>, sealer: Sealer): OAuth2ClientRecord {
  return {
    appId: row.app_id,
    clientId: row.client_id,
    type: row.client_type as ClientType,
    clientSecret: row.client_secret === null ? null : sealer.open(row.client_secret),
    previousClientSecret: row.previous_client_secret === null ? null : sealer.open(row.previous_client_secret),
    previousSecretExpiresAtMs: row.previous_secret_expires_at_ms === null ? null : Number(row.previous_secret_expires_at_ms),
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  }
}

function toGrant(row: Selectable<OAuth2GrantsTable>): OAuth2GrantRecord {
  return {
    id: row.id,
    appId: row.app_id,
    userId: row.user_id,
    scopes: splitScopes(row.scopes),
    createdAtMs: Number(row.created_at_ms),
    revokedAtMs: row.revoked_at_ms === null ? null : Number(row.revoked_at_ms),
  }
}

function toCode(row: Selectable<OAuth2CodesTable>): AuthorizationCodeRecord {
  return {
    appId: row.app_id,
    userId: row.user_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    challengeMethod: row.challenge_method as AuthorizationCodeRecord['challengeMethod'],
    scopes: splitScopes(row.scopes),
    createdAtMs: Number(row.created_at_ms),
    expiresAtMs: Number(row.expires_at_ms),
  }
}

function toToken(row: Selectable<OAuth2TokensTable>): OAuth2TokenRecord {
  return {
    kind: row.kind as OAuth2TokenRecord['kind'],
    grantId: row.grant_id,
    createdAtMs: Number(row.created_at_ms),
    expiresAtMs: Number(row.expires_at_ms),
    spentAtMs: row.spent_at_ms === null ? null : Number(row.spent_at_ms),
  }
}

/** Each app's OAuth 2.0 client on any Kysely dialect; its secrets sealed. */
export function createOAuth2ClientStore(db: Kysely<Database>, sealer: Sealer) {
  return {
    async findByAppId(appId) {
      const row = await db.selectFrom('oauth2_clients').selectAll().where('app_id', '=', appId).executeTakeFirst()
      return row && toClient(row, sealer)
    },
    async findByClientId(clientId) {
      const row = await db.selectFrom('oauth2_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst()
      return row && toClient(row, sealer)
    },
    async findByAppIds(appIds) {
      if (appIds.length === 0) return []
      const rows = await db.selectFrom('oauth2_clients').selectAll().where('app_id', 'in', appIds).execute()
      return rows.map((row) => toClient(row, sealer))
    },
    async save(client) {
      const row = {
        app_id: client.appId,
        client_id: client.clientId,
        client_type: client.type,
        client_secret: client.clientSecret === null ? null : sealer.seal(client.clientSecret),
        previous_client_secret: client.previousClientSecret === null ? null : sealer.seal(client.previousClientSecret),
        previous_secret_expires_at_ms: client.previousSecretExpiresAtMs,
        created_at_ms: client.createdAtMs,
        updated_at_ms: client.updatedAtMs,
      }
      const { app_id: _appId, created_at_ms: _createdAtMs, ...changed } = row
      await db
        .insertInto('oauth2_clients')
        .values(row)
        .onConflict((conflict) => conflict.column('app_id').doUpdateSet(changed))
        .execute()
    },
    async delete(appId) {
      const result = await db.deleteFrom('oauth2_clients').where('app_id', '=', appId).executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },
  } satisfies OAuth2ClientStore
}

/**
 * Authorization codes on any Kysely dialect, found by their keyed hash and never kept otherwise;
 * single use is one conditional UPDATE, which concurrent callers on any number of instances
 * serialize on the row.
 */
export function createOAuth2CodeStore(db: Kysely<Database>, sealer: Sealer) {
  return {
    async create(code, record) {
      await db
        .insertInto('oauth2_codes')
        .values({
          code_hash: sealer.index(code),
          app_id: record.appId,
          user_id: record.userId,
          redirect_uri: record.redirectUri,
          code_challenge: record.codeChallenge,
          challenge_method: record.challengeMethod,
          scopes: record.scopes.join(' '),
          created_at_ms: record.createdAtMs,
          expires_at_ms: record.expiresAtMs,
          redeemed_at_ms: null,
          grant_id: null,
        })
        .execute()
    },
    async redeem(code, nowMs) {
      const hash = sealer.index(code)
      const row = await db
        .updateTable('oauth2_codes')
        .set({ redeemed_at_ms: nowMs })
        .where('code_hash', '=', hash)
        .where('redeemed_at_ms', 'is', null)
        .returningAll()
        .executeTakeFirst()
      if (row) return { outcome: 'redeemed', record: toCode(row) }
      const used = await db.selectFrom('oauth2_codes').selectAll().where('code_hash', '=', hash).executeTakeFirst()
      return used ? { outcome: 'reused', grantId: used.grant_id, record: toCode(used) } : { outcome: 'unknown' }
    },
    async deleteExpired(nowMs) {
      const result = await db.deleteFrom('oauth2_codes').where('expires_at_ms', '<=', nowMs).executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  } satisfies OAuth2CodeStore
}

/**
 * Grants and their tokens on any Kysely dialect, tokens found by their keyed hash. A refresh
 * token is spent by one conditional UPDATE. Multi-statement writes run in a transaction of their
 * own, or inside a unit of work (`isInUnit`) in the unit's.
 */
export function createOAuth2GrantStore(db: Kysely<Database>, sealer: Sealer, options: { isInUnit?: boolean } = {}) {
  const atomically = atomicallyOn(db, options.isInUnit)
  const tokenRows = (tokens: NewOAuth2Token[]) =>
    tokens.map(({ token, record }) => ({
      token_hash: sealer.index(token),
      kind: record.kind,
      grant_id: record.grantId,
      created_at_ms: record.createdAtMs,
      expires_at_ms: record.expiresAtMs,
      spent_at_ms: record.spentAtMs,
    }))

  return {
    async create(grant, tokens, code) {
      await atomically(async (tx) => {
        await tx
          .insertInto('oauth2_grants')
          .values({
            id: grant.id,
            app_id: grant.appId,
            user_id: grant.userId,
            scopes: grant.scopes.join(' '),
            created_at_ms: grant.createdAtMs,
            revoked_at_ms: grant.revokedAtMs,
          })
          .execute()
        await tx.insertInto('oauth2_tokens').values(tokenRows(tokens)).execute()
        if (code !== undefined) await tx.updateTable('oauth2_codes').set({ grant_id: grant.id }).where('code_hash', '=', sealer.index(code)).execute()
      })
    },
    async findToken(token) {
      const row = await db
        .selectFrom('oauth2_tokens')
        .innerJoin('oauth2_grants', 'oauth2_grants.id', 'oauth2_tokens.grant_id')
        .select([
          'oauth2_tokens.token_hash',
          'oauth2_tokens.kind',
          'oauth2_tokens.grant_id',
          'oauth2_tokens.created_at_ms as token_created_at_ms',
          'oauth2_tokens.expires_at_ms',
          'oauth2_tokens.spent_at_ms',
          'oauth2_grants.id',
          'oauth2_grants.app_id',
          'oauth2_grants.user_id',
          'oauth2_grants.scopes',
          'oauth2_grants.created_at_ms',
          'oauth2_grants.revoked_at_ms',
        ])
        .where('oauth2_tokens.token_hash', '=', sealer.index(token))
        .executeTakeFirst()
      if (!row) return undefined
      return { token: toToken({ ...row, created_at_ms: row.token_created_at_ms }), grant: toGrant(row) }
    },
    async rotate(refreshToken, successors, nowMs) {
      return atomically(async (tx) => {
        const spent = await tx
          .updateTable('oauth2_tokens')
          .set({ spent_at_ms: nowMs })
          .where('token_hash', '=', sealer.index(refreshToken))
          .where('kind', '=', 'refresh')
          .where('spent_at_ms', 'is', null)
          .returning('grant_id')
          .executeTakeFirst()
        if (!spent) return false
        await endLiveAccessTokens(tx, spent.grant_id, nowMs).execute()
        await tx.insertInto('oauth2_tokens').values(tokenRows(successors)).execute()
        return true
      })
    },
    async revoke(grantId, nowMs) {
      const result = await db.updateTable('oauth2_grants').set({ revoked_at_ms: nowMs }).where('id', '=', grantId).where('revoked_at_ms', 'is', null).executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
    async revokeAll(filter, nowMs) {
      return atomically(async (tx) => {
        let grants = tx.updateTable('oauth2_grants').set({ revoked_at_ms: nowMs }).where('revoked_at_ms', 'is', null)
        // A code not yet redeemed would make a grant after this: it ends with them (never brought back).
        let codes = tx.deleteFrom('oauth2_codes').where('redeemed_at_ms', 'is', null)
        if (filter.appId !== undefined) {
          grants = grants.where('app_id', '=', filter.appId)
          codes = codes.where('app_id', '=', filter.appId)
        }
        if (filter.userId !== undefined) {
          grants = grants.where('user_id', '=', filter.userId)
          codes = codes.where('user_id', '=', filter.userId)
        }
        await codes.execute()
        const result = await grants.executeTakeFirst()
        return Number(result.numUpdatedRows)
      })
    },
    async listLive(userId) {
      const rows = await db
        .selectFrom('oauth2_grants')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at_ms', 'is', null)
        .orderBy('created_at_ms', 'desc')
        .orderBy('id', 'desc')
        .execute()
      return rows.map(toGrant)
    },
  } satisfies OAuth2GrantStore
}
