import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { describe, test } from 'node:test'
import { Redis } from 'ioredis'
import { ANY_MS, DEAD_OWNER_MS, UNOWNED_MS, isStaleLeftover, leftoverOwner, removeStaleLeftovers } from '../../scripts/test-leftovers.mjs'
import { SHARED_BACKENDS_SKIP, TEST_DATABASE_URL, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema, deleteRedisKeys, runSql } from '../helpers/backends.ts'

// Several test runs share one PostgreSQL and one Redis. Before its PostgreSQL pass, npm test removes
// what crashed runs left behind; it must never remove a schema or key prefix that a running test of
// another run still uses (that made tests of parallel runs fail with "schema … does not exist").

const HOUR = 60 * 60 * 1000
const NOW = Date.UTC(2026, 10, 26, 12)
const nameAt = (ms: number, pid?: number) => `latchkey_test_${ms.toString(36)}${pid === undefined ? '' : `_p${pid}`}_${randomBytes(4).toString('hex')}`
const running = (pid: number) => pid === 1111
const stale = (name: string) => isStaleLeftover(name, { nowMs: NOW, running })

/** The id of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await once(child, 'exit')
  return child.pid!
}

describe('which test leftovers the clean-up removes', () => {
  test('a running process keeps its schema, however old, up to a day', () => {
    assert.equal(stale(nameAt(NOW - 2 * HOUR, 1111)), false)
    assert.equal(stale(nameAt(NOW - (ANY_MS - HOUR), 1111)), false)
    assert.equal(stale(nameAt(NOW - (ANY_MS + HOUR), 1111)), true, 'a day old: its process id may have been reused')
  })

  test("a process that has exited loses its leftovers once they are an hour old", () => {
    assert.equal(stale(nameAt(NOW - (DEAD_OWNER_MS + 60_000), 2222)), true)
    assert.equal(stale(nameAt(NOW - (DEAD_OWNER_MS - 60_000), 2222)), false, 'younger than an hour: perhaps a run on another machine')
  })

  test('a name without a process id (the older shape) is removed after six hours', () => {
    assert.equal(stale(nameAt(NOW - (UNOWNED_MS + 60_000))), true)
    assert.equal(stale(nameAt(NOW - (UNOWNED_MS - 60_000))), false)
  })

  test('names that are not test leftovers are never removed', () => {
    for (const name of ['public', 'latchkey_bench_mhx0000_0123abcd', 'latchkey_test_', 'latchkey_test_old_schema', `latchkey_testing_${(NOW - ANY_MS * 2).toString(36)}_0123abcd`]) {
      assert.equal(stale(name), false, name)
    }
  })

  test('the names the test helpers make record the time and this process', () => {
    const before = Date.now()
    const { prefix } = createTestRedisPrefix('redis://unused.invalid')
    const owner = leftoverOwner(prefix.slice(0, -1))
    assert.ok(owner, prefix)
    assert.equal(owner.pid, process.pid)
    assert.ok(owner.createdAtMs >= before && owner.createdAtMs <= Date.now(), `created at ${owner.createdAtMs}`)
    assert.deepEqual(leftoverOwner(`${prefix}nonce:abc`), owner, 'a Redis key under the prefix names the same owner')
  })
})

describe('the clean-up on the shared PostgreSQL and Redis', { skip: SHARED_BACKENDS_SKIP }, () => {
  test("drops a crashed run's schema and keys, and keeps a running test's, both two hours old", async () => {
    const databaseUrl = TEST_DATABASE_URL!
    const redisUrl = TEST_REDIS_URL!
    const twoHoursAgo = Date.now() - 2 * HOUR
    const crashed = nameAt(twoHoursAgo, await deadPid())
    const live = nameAt(twoHoursAgo, process.pid)
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 })
    try {
      for (const name of [crashed, live]) {
        await runSql(databaseUrl, `create schema ${name}`)
        await redis.set(`${name}:nonce:n1`, '1')
      }
      // And a schema this process made just now, as every test does.
      const fresh = await createTestSchema(databaseUrl)
      try {
        const removed = await removeStaleLeftovers(databaseUrl, redisUrl)
        assert.ok(removed.schemas.includes(crashed), `the crashed run's schema is dropped: ${removed.schemas.join(', ')}`)
        const schemas = (await runSql<{ nspname: string }>(databaseUrl, `select nspname from pg_namespace where nspname in ('${crashed}', '${live}', '${fresh.schema}')`)).map((row) => row.nspname)
        assert.deepEqual(schemas.sort(), [fresh.schema, live].sort())
        assert.equal(await redis.exists(`${crashed}:nonce:n1`), 0)
        assert.equal(await redis.exists(`${live}:nonce:n1`), 1)
      } finally {
        await fresh.drop()
      }
    } finally {
      await runSql(databaseUrl, `drop schema if exists ${crashed} cascade; drop schema if exists ${live} cascade`)
      await deleteRedisKeys(redisUrl, `${crashed}:`)
      await deleteRedisKeys(redisUrl, `${live}:`)
      redis.disconnect()
    }
  })
})
