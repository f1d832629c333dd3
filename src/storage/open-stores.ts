import { sql, type Kysely } from 'kysely'
import type { Stores } from './types.ts'
import type { Database } from './sql/schema.ts'
import { migrateToLatest } from './sql/migrations.ts'
import { createAppStore, createUserStore } from './sql/registry-stores.ts'
import { createAccessTokenStore, createBearerTokenStore, createRequestTokenStore } from './sql/token-stores.ts'
import { createMemoryLimiterFactory } from './memory/limiter.ts'
import { createMemoryNonceStore } from './memory/nonce-store.ts'
import { openSqlite } from './sqlite/open.ts'

export interface StorageOptions {
  /** A SQLite path or sqlite: URL. */
  databaseUrl: string
}

/** The one place an adapter is chosen: opens the database, migrates it, and builds the stores. */
export async function openStores(options: StorageOptions): Promise<Stores> {
  const db = openDatabase(options.databaseUrl)
  await migrateToLatest(db)
  return createSqlStores(db)
}

export function openDatabase(databaseUrl: string): Kysely<Database> {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    throw new Error('PostgreSQL is not supported yet; use a SQLite path')
  }
  return openSqlite(databaseUrl)
}

export function createSqlStores(db: Kysely<Database>): Stores {
  return {
    users: createUserStore(db),
    apps: createAppStore(db),
    requestTokens: createRequestTokenStore(db),
    accessTokens: createAccessTokenStore(db),
    bearerTokens: createBearerTokenStore(db),
    nonces: createMemoryNonceStore(),
    limiters: createMemoryLimiterFactory(),
    async ping() {
      await sql`select 1`.execute(db)
    },
    close: () => db.destroy(),
  }
}
