import { randomUUID } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { Redis } from 'ioredis'
import { DatabaseRefusedError } from '../errors.ts'
import { toStorageError } from '../unavailable.ts'
import type { Database } from '../sql/schema.ts'

/** The table that says a PostgreSQL database's instances share their credentials' generation in Redis (migrations 018, 019). */
export const REDIS_GENERATION_TABLE = 'redis_generation'

/** How often a serving process says it is alive and puts the marker back in its Redis. */
export const HOME_BEAT_MS = 5_000
/** A beat younger than this means instances are serving from caches now. */
const LIVE_SECONDS = 15

/** Where the marker is kept in Redis, beside the generation. */
export const homeKey = (keyPrefix: string): string => `${keyPrefix}generation-home`

interface HomeRow {
  key_prefix: string
  marker: string | null
  live: boolean
}

/**
 * Where a PostgreSQL database's credentials' generation is kept, and proof that this process's Redis
 * is that place. The first process with Redis records its key prefix; the first serving process
 * records a random marker in both the table and its Redis. A process is refused when its writes
 * could not reach the serving instances' caches: without Redis, with another key prefix, or with a
 * Redis that holds another marker — another server, another database number — or none while
 * instances serve (one that lost its keys while they run: they put it back within a beat).
 *
 * A serving process (`serves`) claims an unclaimed home and keeps it: it beats every HOME_BEAT_MS
 * and puts the marker back in its Redis when missing. The CLI never claims: with no instance
 * serving, there is no cache for its writes to reach.
 */
export async function claimGenerationHome(
  db: Kysely<Database>,
  shared: { redis: Redis; keyPrefix: string } | undefined,
  serves: boolean,
): Promise<{ stop(): void } | undefined> {
  const table = sql.table(REDIS_GENERATION_TABLE)
  if (shared) await sql`insert into ${table} (id, key_prefix) values (1, ${shared.keyPrefix}) on conflict (id) do nothing`.execute(db)
  const home = await readHome(db)
  if (!home) return undefined
  if (!shared || home.key_prefix !== shared.keyPrefix) throw refusal(home, shared ? `their key prefix (--redis-key-prefix), not "${shared.keyPrefix}"` : 'the same redis setting (--redis, LATCHKEY_REDIS_URL)')
  const held = await inRedis(() => shared.redis.get(homeKey(shared.keyPrefix)))
  if (home.marker !== null && held === home.marker) return serves ? keepHome(db, shared, home.marker) : undefined
  if (held !== null && home.marker !== null) throw refusal(home, 'their Redis: this one holds another marker (another server or database number)')
  if (home.live && home.marker !== null) throw refusal(home, 'their Redis: this one does not hold their marker (another server or database number, or one that lost its keys while they run, which they put back within seconds)')
  if (!serves) return undefined
  return keepHome(db, shared, await claim(db, shared, home.marker))
}

async function readHome(db: Kysely<Database>): Promise<HomeRow | undefined> {
  const { rows } = await sql<HomeRow>`
    select key_prefix, marker, coalesce(beat_at > now() - make_interval(secs => ${LIVE_SECONDS}), false) as live
    from ${sql.table(REDIS_GENERATION_TABLE)} where id = 1`.execute(db)
  return rows[0]
}

/** A Redis command whose failure is an outage of Redis, as every store call's is. */
async function inRedis<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command()
  } catch (error) {
    throw toStorageError(error, 'Redis')
  }
}

function refusal(home: HomeRow, given: string): DatabaseRefusedError {
  return new DatabaseRefusedError(
    `the instances on this database share their credentials' generation in Redis (key prefix "${home.key_prefix}"): give this process ${given}, so that what it changes reaches their caches; if no instance uses that any more, run DELETE FROM ${REDIS_GENERATION_TABLE} on the database first`,
  )
}

/**
 * Takes the home for this process's Redis. Racing claims agree: on one Redis they all adopt the
 * marker the first of them set there; across Redises, the first to record its marker in the
 * table wins and the others are refused.
 */
async function claim(db: Kysely<Database>, shared: { redis: Redis; keyPrefix: string }, previous: string | null): Promise<string> {
  const key = homeKey(shared.keyPrefix)
  const marker = await inRedis(async () => (await shared.redis.set(key, randomUUID(), 'NX'), await shared.redis.get(key)))
  if (marker === null) throw new DatabaseRefusedError(`Redis lost the key ${key} as soon as it was set: give it room (maxmemory) or a policy that keeps keys without a time to live`)
  const { numAffectedRows } = await sql`
    update ${sql.table(REDIS_GENERATION_TABLE)} set marker = ${marker}, beat_at = now()
    where id = 1 and (marker is not distinct from ${previous} or marker = ${marker})`.execute(db)
  if (numAffectedRows !== 1n) throw new DatabaseRefusedError('another instance took another Redis as the home of the credentials\' generation at the same moment: start this one again to be checked against it')
  return marker
}

/** Beats now and every HOME_BEAT_MS, and on every (re)connection to Redis, until stopped. */
async function keepHome(db: Kysely<Database>, shared: { redis: Redis; keyPrefix: string }, marker: string): Promise<{ stop(): void }> {
  const beat = async () => {
    const { numAffectedRows } = await sql`update ${sql.table(REDIS_GENERATION_TABLE)} set beat_at = now() where id = 1 and marker = ${marker}`.execute(db)
    // Claimed by another since (an operator reset the table): no longer this process's to mend.
    if (numAffectedRows === 1n) await inRedis(() => shared.redis.set(homeKey(shared.keyPrefix), marker, 'NX'))
  }
  await beat()
  // An outage is reported by the requests that meet it; the next beat tries again.
  const quietly = () => void beat().catch(() => {})
  const timer = setInterval(quietly, HOME_BEAT_MS)
  timer.unref()
  shared.redis.on('ready', quietly)
  return {
    stop() {
      clearInterval(timer)
      shared.redis.off('ready', quietly)
    },
  }
}
