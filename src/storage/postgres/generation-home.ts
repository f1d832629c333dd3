import { sql, type Kysely } from 'kysely'
import { DatabaseRefusedError } from '../errors.ts'
import type { Database } from '../sql/schema.ts'

/** The table that says a PostgreSQL database's instances share their credentials' generation in Redis (migration 018). */
export const REDIS_GENERATION_TABLE = 'redis_generation'

/**
 * Where a PostgreSQL database's credentials' generation is kept. A process with Redis records it
 * (under its key prefix); a process without Redis on a database so marked is refused: its
 * credential writes (the CLI's, say) would not move the generation, and the instances' validity
 * caches would go on accepting what they ended.
 */
export async function claimGenerationHome(db: Kysely<Database>, redisKeyPrefix: string | undefined): Promise<void> {
  const table = sql.table(REDIS_GENERATION_TABLE)
  if (redisKeyPrefix !== undefined) {
    await sql`insert into ${table} (id, key_prefix) values (1, ${redisKeyPrefix}) on conflict (id) do update set key_prefix = excluded.key_prefix`.execute(db)
    return
  }
  const { rows } = await sql<{ key_prefix: string }>`select key_prefix from ${table} where id = 1`.execute(db)
  const home = rows[0]
  if (home) {
    throw new DatabaseRefusedError(
      `the instances on this database share their credentials' generation in Redis (key prefix "${home.key_prefix}"): give this process the same redis setting (--redis, LATCHKEY_REDIS_URL), so that what it changes reaches their caches; if no instance uses Redis any more, run DELETE FROM ${REDIS_GENERATION_TABLE} on the database first`,
    )
  }
}
