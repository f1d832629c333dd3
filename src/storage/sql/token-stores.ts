import type { Kysely } from 'kysely'
import type { Sealer } from '../sealing/sealer.ts'
import type { AccessTokenStore, BearerTokenStore, RequestTokenStore } from '../types.ts'
import type { Database } from './schema.ts'
import {
  fromAccessToken,
  fromBearerToken,
  fromRequestToken,
  toAccessToken,
  toRequestToken,
} from './rows.ts'
import { findAccessToken, findBearerToken, findLiveBearerToken } from './lookups.ts'

/**
 * Tokens on any Kysely dialect. Single-use and one-of rules are conditional updates and unique
 * indexes; every token is found by its keyed hash, and request tokens and verifiers are kept only
 * as that hash.
 */
export function createRequestTokenStore(db: Kysely<Database>, sealer: Sealer) {
  return {
    async create(record) {
      await db.insertInto('request_tokens').values(fromRequestToken(record, sealer)).execute()
    },
    async findByToken(token) {
      const row = await db.selectFrom('request_tokens').selectAll().where('token_hash', '=', sealer.index(token)).executeTakeFirst()
      return row && toRequestToken(row, token, sealer)
    },
    async authorize(token, userId, verifier, nowMs) {
      const result = await db
        .updateTable('request_tokens')
        .set({ status: 'authorized', user_id: userId, verifier_hash: sealer.index(verifier) })
        .where('token_hash', '=', sealer.index(token))
        .where('status', '=', 'issued')
        .where('expires_at_ms', '>', nowMs)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
    async deny(token, nowMs) {
      const result = await db
        .updateTable('request_tokens')
        .set({ status: 'denied' })
        .where('token_hash', '=', sealer.index(token))
        .where('status', '=', 'issued')
        .where('expires_at_ms', '>', nowMs)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
    async redeemVerifier(token, verifier, maxFailures, nowMs) {
      // One statement decides, so concurrent attempts serialize on the row: each sees the failures
      // counted before it. Keyed hashes are compared in SQL, which reveals nothing by timing (the
      // hash of a guess says nothing about the verifier's without the index key). An `issued` token
      // has no verifier yet, so every attempt on it is a counted failure.
      const verifierHash = sealer.index(verifier)
      const row = await db
        .updateTable('request_tokens')
        .set((eb) => {
          const matches = eb('verifier_hash', '=', verifierHash)
          return {
            status: eb.case().when(matches).then('used').when('verifier_failures', '>=', maxFailures - 1).then('dead').else(eb.ref('status')).end(),
            verifier_failures: eb.case().when(matches).then(eb.ref('verifier_failures')).else(eb('verifier_failures', '+', 1)).end(),
          }
        })
        .where('token_hash', '=', sealer.index(token))
        .where('status', 'in', ['issued', 'authorized'])
        .where('expires_at_ms', '>', nowMs)
        .returningAll()
        .executeTakeFirst()
      if (!row) return { outcome: 'not-redeemable' }
      if (row.status === 'used') return { outcome: 'redeemed', record: toRequestToken(row, token, sealer) }
      return { outcome: 'wrong-verifier', failures: row.verifier_failures }
    },
    async deleteExpired(nowMs) {
      const result = await db.deleteFrom('request_tokens').where('expires_at_ms', '<=', nowMs).executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  } satisfies RequestTokenStore
}

/**
 * Finds the live row, else inserts the candidate; a race lost on the one-live unique index re-reads
 * the winner. `insert` answers false for that lost race (`on conflict do nothing`) instead of
 * throwing: inside a PostgreSQL transaction an error would abort the whole unit of work.
 */
async function issueOrReuse<T>(findLive: () => Promise<T | undefined>, insert: () => Promise<boolean>, candidate: T): Promise<T> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const live = await findLive()
    if (live) return live
    if (await insert()) return candidate
  }
  throw new Error('issueOrReuse: the live token kept changing under concurrent writes')
}

/** True when the insert wrote its row. */
const inserted = (result: { numInsertedOrUpdatedRows?: bigint } | undefined) => Number(result?.numInsertedOrUpdatedRows ?? 0) === 1

export function createAccessTokenStore(db: Kysely<Database>, sealer: Sealer) {
  const store: AccessTokenStore = {
    findByToken: (token) => findAccessToken(db, sealer, token),
    async findLive(appId, userId, accessLevel) {
      const row = await db
        .selectFrom('access_tokens')
        .selectAll()
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .where('access_level', '=', accessLevel)
        .where('revoked_at_ms', 'is', null)
        .executeTakeFirst()
      return row && toAccessToken(row, sealer)
    },
    issueOrReuse(candidate) {
      return issueOrReuse(
        () => store.findLive(candidate.appId, candidate.userId, candidate.accessLevel),
        async () =>
          inserted(
            await db
              .insertInto('access_tokens')
              .values(fromAccessToken(candidate, sealer))
              .onConflict((oc) => oc.columns(['app_id', 'user_id', 'access_level']).where('revoked_at_ms', 'is', null).doNothing())
              .executeTakeFirst(),
          ),
        candidate,
      )
    },
    async revoke(token, nowMs) {
      const result = await db
        .updateTable('access_tokens')
        .set({ revoked_at_ms: nowMs })
        .where('token_hash', '=', sealer.index(token))
        .where('revoked_at_ms', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
    async revokeAuthorization(userId, appId, nowMs) {
      const result = await db
        .updateTable('access_tokens')
        .set({ revoked_at_ms: nowMs })
        .where('user_id', '=', userId)
        .where('app_id', '=', appId)
        .where('revoked_at_ms', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
  }
  return store
}

export function createBearerTokenStore(db: Kysely<Database>, sealer: Sealer) {
  const findLive = (appId: string) => findLiveBearerToken(db, sealer, appId)
  return {
    findByToken: (token) => findBearerToken(db, sealer, token),
    findLive,
    issueOrReuse(candidate) {
      return issueOrReuse(
        () => findLive(candidate.appId),
        async () =>
          inserted(
            await db
              .insertInto('bearer_tokens')
              .values(fromBearerToken(candidate, sealer))
              .onConflict((oc) => oc.column('app_id').where('revoked_at_ms', 'is', null).doNothing())
              .executeTakeFirst(),
          ),
        candidate,
      )
    },
    async revoke(token, nowMs) {
      const result = await db
        .updateTable('bearer_tokens')
        .set({ revoked_at_ms: nowMs })
        .where('token_hash', '=', sealer.index(token))
        .where('revoked_at_ms', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
  } satisfies BearerTokenStore
}
