import { sql, type Kysely } from 'kysely'
import { DatabaseRefusedError } from '../errors.ts'
import type { Database } from '../sql/schema.ts'

/** The table that says a PostgreSQL database's instances share their credentials' generation in Redis (migration 018). */
export const REDIS_GENERATION_TABLE = 'redis_generation'

/**
 * Where a PostgreSQL database's credentials' generation is kept. The first process with Redis
 * records its key prefix; a process without Redis, or with another prefix, is then refused: its
 * credential writes (the CLI's, say) would not move the instances' generation, and their validity
 * caches would go on accepting what it ended. Checked when a process opens the database.
 */
export async function claimGenerationHome(db: Kysely<Database>, redisKeyPrefix: string | undefined): Promise<void> {
  const table = sql.table(REDIS_GENERATION_TABLE)
  if (redisKeyPrefix !== undefined) await sql`insert into ${table} (id, key_prefix) values (1, ${redisKeyPrefix}) on conflict (id) do nothing`.execute(db)
  const { rows } = await sql<{ key_prefix: string }>`select key_prefix from ${table} where id = 1`.execute(db)
  const home = rows[0]
  if (home && home.key_prefix !== redisKeyPrefix) {
    const given = redisKeyPrefix === undefined ? 'the same redis setting (--redis, LATCHKEY_REDIS_URL)' : `their key prefix (--redis-key-prefix), not "${redisKeyPrefix}"`
    throw new DatabaseRefusedError(
      `the instances on this database share their credentials' generation in Redis (key prefix "${home.key_prefix}"): give this process ${given}, so that what it changes reaches their caches; if no instance uses that any more, run DELETE FROM ${REDIS_GENERATION_TABLE} on the database first`,
    )
  }
}
