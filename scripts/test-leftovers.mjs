// Test schemas (PostgreSQL) and key prefixes (Redis) that a crashed test run left behind, and their
// removal before the PostgreSQL + Redis pass of npm test (scripts/run-tests.mjs).
//
// Several test runs share one PostgreSQL and one Redis (helpers on one machine, a developer running
// two suites). A run must never remove what another run is still using, so a name says who made it
// and when (test/helpers/backends.ts): `latchkey_test_<ms base 36>_p<pid>_<8 hex>`. A leftover is
// removed only when the process that made it is no longer running and it is over an hour old, or,
// whatever its process, when it is over a day old (a process id reused by another program, or a run
// on another machine sharing the services). Names without a process id (made before it was recorded)
// are removed after six hours, as before.
import pg from 'pg'
import { Redis } from 'ioredis'

/** A leftover whose process is gone is removed after this long. */
export const DEAD_OWNER_MS = 60 * 60 * 1000
/** A leftover of the older name shape, without a process id, is removed after this long. */
export const UNOWNED_MS = 6 * 60 * 60 * 1000
/** Any leftover is removed after this long, its process running or not. */
export const ANY_MS = 24 * 60 * 60 * 1000

/** When and by which process a test schema or key prefix was made, or undefined for another name. */
export function leftoverOwner(name) {
  const owned = /^latchkey_test_([0-9a-z]+)_p(\d+)_[0-9a-f]{8}(?![0-9a-z])/.exec(name)
  if (owned) return { createdAtMs: parseInt(owned[1], 36), pid: Number(owned[2]) }
  const unowned = /^latchkey_test_([0-9a-z]+)_[0-9a-f]{8}(?![0-9a-z])/.exec(name)
  if (unowned) return { createdAtMs: parseInt(unowned[1], 36), pid: undefined }
  return undefined
}

/** Whether process `pid` is running on this machine (signal 0 checks without sending anything). */
export function isRunning(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return error?.code === 'EPERM'
  }
}

/** Whether `name` is a test leftover that no running test can be using. */
export function isStaleLeftover(name, { nowMs = Date.now(), running = isRunning } = {}) {
  const owner = leftoverOwner(name)
  if (!owner || !Number.isFinite(owner.createdAtMs)) return false
  const age = nowMs - owner.createdAtMs
  if (age > ANY_MS) return true
  if (owner.pid === undefined) return age > UNOWNED_MS
  return age > DEAD_OWNER_MS && !running(owner.pid)
}

/** The catalogs a schema's tables, indexes and triggers write rows to. */
const BLOATED_CATALOGS = ['pg_attribute', 'pg_class', 'pg_type', 'pg_depend', 'pg_index', 'pg_constraint', 'pg_trigger', 'pg_attrdef', 'pg_namespace']

/**
 * Drops the stale test schemas of `databaseUrl`, vacuums the catalogs they were written to, and
 * deletes the stale test keys of `redisUrl`; returns what it removed.
 */
export async function removeStaleLeftovers(databaseUrl, redisUrl, options = {}) {
  const isStale = (name) => isStaleLeftover(name, options)
  const removed = { schemas: [], redisKeys: 0 }
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    const { rows } = await client.query(`select nspname from pg_namespace where nspname like 'latchkey\\_test\\_%'`)
    for (const { nspname } of rows.filter((row) => isStale(row.nspname))) {
      await client.query(`drop schema if exists "${nspname}" cascade`)
      removed.schemas.push(nspname)
    }
    // Every test makes and drops a schema of a score of tables: the catalogs' dead rows outgrow
    // autovacuum over many runs (pg_attribute was seen at 1 GB, every DDL statement twice as slow).
    await client.query(`vacuum ${BLOATED_CATALOGS.map((table) => `pg_catalog.${table}`).join(', ')}`)
  } finally {
    await client.end().catch(() => {})
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', 'latchkey_test_*', 'COUNT', 1000)
      cursor = next
      const stale = keys.filter(isStale)
      if (stale.length > 0) removed.redisKeys += await redis.del(...stale)
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
  return removed
}
