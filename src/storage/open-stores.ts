import { sql, type Kysely } from 'kysely'
import type { Redis } from 'ioredis'
import type { AuditStore, Generation, LimiterFactory, NonceStore, Storage, TransactionStores } from './types.ts'
import type { Database } from './sql/schema.ts'
import { migrateToLatest } from './sql/migrations.ts'
import { createAuditStore } from './sql/audit-store.ts'
import { createCredentialLookup } from './sql/lookups.ts'
import { createExternalSignInStore, createIdentityLinkStore } from './sql/account-stores.ts'
import { createAdminTokenStore, createSignInUnlockStore } from './sql/admin-token-store.ts'
import { createListingStore } from './sql/listing-store.ts'
import { createBrowserSessionStore } from './sql/session-store.ts'
import { createSignatureFailureStore } from './sql/signature-failure-store.ts'
import { createOAuth2ClientStore, createOAuth2CodeStore, createOAuth2GrantStore } from './sql/oauth2-stores.ts'
import { createAppStore, createUserStore } from './sql/registry-stores.ts'
import { createRevocationOutboxStore, createWebhookStore } from './sql/revocation-stores.ts'
import { createAccessTokenStore, createBearerTokenStore, createRequestTokenStore } from './sql/token-stores.ts'
import { createMemoryLimiterFactory } from './memory/limiter.ts'
import { createMemoryNonceStore } from './memory/nonce-store.ts'
import { createClockedLimiterFactory } from './memory/clocked-limiter.ts'
import { keptStateOf } from './sqlite/kept-state.ts'
import { createRedisLimiterFactory } from './redis/limiter.ts'
import { createRedisNonceStore } from './redis/nonce-store.ts'
import type { NonceBudget } from './nonce-share.ts'
import { openSqlite } from './sqlite/open.ts'
import { StorageUnavailableError } from './errors.ts'
import { describe, isUnavailableError, toStorageError } from './unavailable.ts'
import { isPostgresUrl, redactUrl } from './urls.ts'
import { watchKeyring, type KeyringSource } from './sealing/keyring.ts'
import { createSealer, type Sealer } from './sealing/sealer.ts'
import { resealAll } from './sql/reseal.ts'
import { createTransactionRunner, type TransactionRunner } from './sql/transactions.ts'
import { directConnection } from './sql/prepared.ts'
import { sqliteGeneration } from './sqlite/generation.ts'
import { createRedisGeneration, type RedisGeneration } from './redis/generation.ts'
import { createRedisAdmissions } from './redis/admissions.ts'
import { createAdmissions } from './admissions.ts'
import { UNIT_STORE_NAMES } from './store-methods.ts'
import { revocationChannel } from './revocation-types.ts'
import { claimGenerationHome } from './postgres/generation-home.ts'

export interface StorageOptions {
  /** A postgres:// or postgresql:// URL, or a SQLite path or sqlite: URL. */
  databaseUrl: string
  /** A redis:// URL: nonces and rate-limit counters shared by every instance. Without it, in memory. */
  redisUrl?: string | undefined
  /** Prefix of every Redis key (default `latchkey:`), so that several deployments can share one Redis. */
  redisKeyPrefix?: string | undefined
  /** The master keys that seal secrets at rest. */
  keyring: KeyringSource
  /** How many nonces the store holds, and past which fraction an app's share counts (src/storage/nonce-share.ts); the defaults when unset. */
  nonceBudget?: Partial<NonceBudget> | undefined
  /**
   * Whether this process serves requests (default; the CLI does not): it waits (up to a second) until
   * the nonce store's epoch is in a past second before resolving, and on PostgreSQL with Redis it
   * claims and keeps the credentials' generation's home (postgres/generation-home.ts).
   */
  settleNonceEpoch?: boolean
  /**
   * When the in-memory nonce store counts as complete from (default: now, its creation). Only a
   * caller that runs on its own clock sets it (the domain test tier, whose fixed clock is in the past).
   */
  nonceEpochMs?: number | undefined
  /**
   * The test mode (`serve --test`, embedded database only): rate-limit windows on this clock, and a
   * state to reset to (StorageRuntime.testState).
   */
  forTests?: { nowMs: () => number } | undefined
}

/**
 * The one place an adapter is chosen: opens the database (PostgreSQL for a postgres:// URL, SQLite
 * otherwise), migrates it, connects to Redis when given, and builds the stores and their runtime.
 */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  const db = await openDatabase(options.databaseUrl)
  const isPostgres = isPostgresUrl(options.databaseUrl)
  const what = isPostgres ? `PostgreSQL at ${redactUrl(options.databaseUrl)}` : 'the database'
  const keyPrefix = options.redisKeyPrefix ?? 'latchkey:'
  let redis: Redis | undefined
  let home: { stop(): void } | undefined
  try {
    await migrateToLatest(db).catch((error: unknown) => {
      // A database that cannot be reached at start is an outage, not a failed migration.
      const cause = error instanceof Error && error.cause !== undefined ? error.cause : error
      throw isUnavailableError(cause) ? new StorageUnavailableError(`cannot reach ${what}: ${describe(cause)}`, { cause }) : error
    })
    if (options.redisUrl) redis = await (await import('./redis/client.ts')).openRedis(options.redisUrl)
    if (isPostgres) home = await claimGenerationHome(db, redis && { redis, keyPrefix }, options.settleNonceEpoch !== false)
  } catch (error) {
    if (redis) await (await import('./redis/client.ts')).closeRedis(redis)
    await db.destroy()
    throw error
  }
  const sealer = createSealer(watchKeyring(options.keyring))
  // Values written before sealing existed (or by hand) are sealed now; cheap when there are none.
  await resealAll(db, sealer, { onlyUnsealed: true })
  const storage = createSqlStorage(db, sealer, redis ? { redis, keyPrefix } : undefined, {
    nonceBudget: options.nonceBudget,
    // The test mode's nonce store counts from the start of this second at once: its process begins
    // with nothing to remember, and a test suite need not wait up to a second for its first request.
    nonceEpochMs: options.forTests && !isPostgres ? Math.floor(options.forTests.nowMs() / 1000) * 1000 : options.nonceEpochMs,
    onClose: home?.stop,
    forTests: isPostgres ? undefined : options.forTests,
  })
  try {
    if (options.settleNonceEpoch !== false && !storage.runtime.testState) await storage.stores.nonces.settleEpoch()
  } catch (error) {
    await storage.runtime.close()
    throw error
  }
  return storage
}

/** A dependency that answers within this long is up: a load balancer's probe must not hang on a stuck one. */
const READINESS_TIMEOUT_MS = 2000

/** Whether `check` resolves within READINESS_TIMEOUT_MS. */
async function answers(check: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS)
  })
  try {
    return await Promise.race([check().then(() => true, () => false), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Kysely over PostgreSQL or SQLite, by the URL's form; not yet migrated. pg (like ioredis) is loaded
 * only when asked for: a CLI command on the embedded database starts without them.
 */
export async function openDatabase(databaseUrl: string): Promise<Kysely<Database>> {
  return isPostgresUrl(databaseUrl) ? (await import('./postgres/open.ts')).openPostgres(databaseUrl) : openSqlite(databaseUrl)
}

/**
 * Where commits are grouped (SQLite), a row recorded on its own joins the commit of its turn of the
 * event loop: nearly every use case records one, most of them in the same few pages. How this
 * adapter writes a row, not a layer: it needs the adapter's own units (runOwnWrite).
 */
function auditStore(store: AuditStore, units: TransactionRunner): AuditStore {
  return units.isGrouped ? { ...store, record: (event) => units.runOwnWrite((tx) => tx.audit.record(event)) } : store
}

/** Every database store over `conn`: the database itself, or (`isInUnit`) a unit of work's transaction. */
function databaseStores(conn: Kysely<Database>, sealer: Sealer, isInUnit = false) {
  return {
    users: createUserStore(conn),
    apps: createAppStore(conn, sealer, { isInUnit }),
    requestTokens: createRequestTokenStore(conn, sealer),
    accessTokens: createAccessTokenStore(conn, sealer),
    bearerTokens: createBearerTokenStore(conn, sealer),
    audit: createAuditStore(conn),
    credentials: createCredentialLookup(conn, sealer),
    adminTokens: createAdminTokenStore(conn, sealer),
    signInUnlocks: createSignInUnlockStore(conn),
    listings: createListingStore(conn, sealer),
    sessions: createBrowserSessionStore(conn),
    signatureFailures: createSignatureFailureStore(conn),
    oauth2Clients: createOAuth2ClientStore(conn, sealer),
    oauth2Codes: createOAuth2CodeStore(conn, sealer),
    oauth2Grants: createOAuth2GrantStore(conn, sealer, { isInUnit }),
    revocations: createRevocationOutboxStore(conn),
    webhooks: createWebhookStore(conn, sealer, { isInUnit }),
    identityLinks: createIdentityLinkStore(conn),
    externalSignIns: createExternalSignInStore(conn, sealer),
  }
}

/**
 * The credentials' generation: on SQLite the database's own (sqlite/generation.ts), its failures
 * reported as any store call's are (a busy database is an outage, 503); on PostgreSQL the one its
 * instances share in Redis (redis/generation.ts), which every credential write of this process
 * moves (generation-moves.ts); on PostgreSQL without Redis none, and no cache.
 */
function generationOf(
  db: Kysely<Database>,
  shared: { redis: Redis; keyPrefix: string } | undefined,
): { read: Generation; move?: () => Promise<void>; redis?: RedisGeneration; close?: () => void } | undefined {
  const connection = directConnection(db)
  if (!connection) {
    if (!shared) return undefined
    const redis = createRedisGeneration(shared.redis, `${shared.keyPrefix}generation`)
    return { read: redis.read, move: redis.move, redis }
  }
  const generation = sqliteGeneration(connection)
  return {
    read: () => {
      try {
        return generation.read()
      } catch (error) {
        throw toStorageError(error, 'database')
      }
    },
    close: generation.close,
  }
}

/** The stores over an open database, with nonces and limiters in Redis when given, else in memory. */
export function createSqlStorage(
  db: Kysely<Database>,
  sealer: Sealer,
  shared?: { redis: Redis; keyPrefix: string },
  options: {
    nonceBudget?: Partial<NonceBudget> | undefined
    nonceEpochMs?: number | undefined
    onClose?: (() => void) | undefined
    forTests?: { nowMs: () => number } | undefined
  } = {},
): Storage {
  const budget = options.nonceBudget ?? {}
  const memoryNonces = shared ? undefined : createMemoryNonceStore({ ...budget, ...(options.nonceEpochMs === undefined ? {} : { epochMs: options.nonceEpochMs }) })
  const redisNonces = shared && createRedisNonceStore(shared.redis, `${shared.keyPrefix}nonce:`, budget)
  const nonces: NonceStore = memoryNonces ?? redisNonces!
  const clocked = options.forTests && !shared ? createClockedLimiterFactory(options.forTests.nowMs) : undefined
  const limitPrefix = shared && `${shared.keyPrefix}limit:`
  const limiters: LimiterFactory = shared ? createRedisLimiterFactory(shared.redis, limitPrefix!) : (clocked ?? createMemoryLimiterFactory())
  const kept = clocked && memoryNonces ? keptStateOf(db) : undefined
  // A unit of work's stores are bound to its transaction (on SQLite, to the batch's): those STORE_METHODS says a unit has.
  const units = createTransactionRunner(db, (conn) => {
    const all = databaseStores(conn, sealer, true)
    return Object.fromEntries(UNIT_STORE_NAMES.map((name) => [name, all[name]])) as TransactionStores
  })
  const generation = generationOf(db, shared)
  // Plain adapters: the composition root wraps them (src/composition/store-layers.ts).
  const plain = databaseStores(db, sealer)
  const stores: Storage['stores'] = {
    ...plain,
    audit: auditStore(plain.audit, units),
    transaction: (work) => units.run(work),
    nonces,
    admissions: shared ? createRedisAdmissions(shared.redis, { limitPrefix: limitPrefix!, nonces: redisNonces!, generation: generation?.redis }) : createAdmissions(nonces),
  }
  const runtime: Storage['runtime'] = {
    limiters,
    generation: generation?.read,
    moveGeneration: generation?.move,
    generationReadByAdmissions: generation?.redis && { isOwed: generation.redis.isOwed },
    publishRevocation: shared && ((message) => shared.redis.publish(revocationChannel(shared.keyPrefix), message)),
    ...(kept && clocked && memoryNonces
      ? {
          testState: {
            keep: () => kept.keep(),
            async restore() {
              await kept.restore()
              clocked.clear()
              memoryNonces.clear()
            },
          },
        }
      : {}),
    deriveSecret: (purpose) => sealer.derive(purpose),
    legacyDerivedSecret: (purpose) => sealer.index(`latchkey derived secret: ${purpose}`),
    async ping() {
      try {
        await sql`select 1`.execute(db)
      } catch (error) {
        throw toStorageError(error, 'database')
      }
      if (shared) {
        try {
          await shared.redis.ping()
        } catch (error) {
          throw toStorageError(error, 'Redis')
        }
      }
    },
    async checkDependencies() {
      const [database, redis, masterKey] = await Promise.all([
        answers(() => sql`select 1`.execute(db)),
        shared ? answers(() => shared.redis.ping()) : undefined,
        answers(async () => sealer.open(sealer.seal('readiness'))),
      ])
      return {
        database: database ? 'up' : 'down',
        redis: redis === undefined ? 'not_configured' : redis ? 'up' : 'down',
        master_key: masterKey ? 'loaded' : 'unusable',
      }
    },
    async close() {
      options.onClose?.()
      if (shared) await (await import('./redis/client.ts')).closeRedis(shared.redis)
      await units.drain()
      generation?.close?.()
      await db.destroy()
    },
  }
  return { stores, runtime }
}
