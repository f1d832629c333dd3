import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Redis } from 'ioredis'
import pino from 'pino'
import { composeApp } from '../../src/composition/apps.ts'
import { createDomainDeps } from '../../src/composition/root.ts'
import { AppNameTakenError, StorageUnavailableError } from '../../src/storage/errors.ts'
import { openLayeredStorage } from './layered.ts'
import { closeRedis, openRedis } from '../../src/storage/redis/client.ts'
import type { Storage } from '../../src/storage/types.ts'
import { SHARED_BACKENDS_SKIP, runSql } from '../helpers/backends.ts'
import { testDomainSettings } from '../helpers/test-app.ts'
import { startThrowawayPostgres, startThrowawayRedis, type ThrowawayService } from '../helpers/throwaway-services.ts'
import { testKeyring } from '../helpers/keys.ts'
import { expiryOf, nonceUse } from '../helpers/nonce-use.ts'
import { eventually } from '../helpers/eventually.ts'
import { appRecord } from './contract.ts'

/**
 * Outages: a PostgreSQL and a Redis of this test's own are stopped under open stores. Every call
 * that needs the missing one rejects with StorageUnavailableError (the HTTP layer's 503 code 130)
 * within two seconds, and once the service is back the same stores work again by themselves.
 */
const FAST_MS = 2_000
const NOW = 1_750_000_000_000

/** A use stamped two seconds ahead (after any epoch a restart just set), its expiry and now: remember's arguments. */
const stampedNow = (consumerKey: string, nonce: string) => {
  const use = nonceUse(consumerKey, nonce, { timestampSeconds: Math.floor(Date.now() / 1000) + 2 })
  return [use, expiryOf(use), Date.now()] as const
}

/** How an outage's message (the log's) begins, naming the backend that is down. */
const DATABASE_DOWN = /^database unavailable: /
const REDIS_DOWN = /^Redis unavailable: /

/** The call rejects as unavailable within FAST_MS, its message (the log's) naming the backend that is down. */
async function rejectsFast(call: () => Promise<unknown>, label: string, backend: RegExp): Promise<void> {
  const started = Date.now()
  await assert.rejects(call(), (error: unknown) => {
    assert.ok(error instanceof StorageUnavailableError, `${label}: ${(error as Error)?.name}: ${(error as Error)?.message}`)
    assert.match(error.message, backend, label)
    return true
  })
  const elapsed = Date.now() - started
  assert.ok(elapsed < FAST_MS, `${label} took ${elapsed} ms`)
}

/** `body` on a connection of its own to the Redis at `url`. */
async function withRedis<T>(url: string, body: (client: Redis) => Promise<T>): Promise<T> {
  const client = await openRedis(url)
  try {
    return await body(client)
  } finally {
    await closeRedis(client)
  }
}

const user = (id: string) => ({ id, screenName: `outage_${id}`, name: 'N', passwordHash: 'h', createdAtMs: NOW })

describe('storage outages', { skip: SHARED_BACKENDS_SKIP, timeout: 180_000 }, () => {
  let postgres: ThrowawayService | undefined
  let redis: ThrowawayService | undefined
  let storage: Storage | undefined
  let skip: string | undefined

  before(async () => {
    const [pg, rd] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis()])
    if ('skip' in pg || 'skip' in rd) {
      skip = 'skip' in pg ? pg.skip : (rd as { skip: string }).skip
      if (!('skip' in pg)) await pg.destroy()
      if (!('skip' in rd)) await rd.destroy()
      return
    }
    postgres = pg
    redis = rd
    storage = await openLayeredStorage({ keyring: testKeyring(), databaseUrl: postgres.url, redisUrl: redis.url })
  })
  after(async () => {
    await storage?.runtime.close()
    await postgres?.destroy()
    await redis?.destroy()
  })

  test('PostgreSQL down: store calls reject with StorageUnavailableError quickly; back up: the same stores work', async (t) => {
    if (skip || !storage || !postgres) return t.skip(skip)
    const { stores: s, runtime: r } = storage
    assert.equal(await s.users.create(user('1')), true)
    await r.ping()

    await postgres.stop()
    await rejectsFast(() => s.users.findById('1'), 'users.findById', DATABASE_DOWN)
    await rejectsFast(() => s.users.create(user('2')), 'users.create', DATABASE_DOWN)
    await rejectsFast(() => s.apps.rotateKeys('x', { keys: { consumerKey: 'k', consumerSecret: 's' }, revokeTokens: true, nowMs: NOW }), 'apps.rotateKeys (a transaction)', DATABASE_DOWN)
    await rejectsFast(() => s.requestTokens.redeemVerifier('t', 'v', 3, NOW), 'requestTokens.redeemVerifier', DATABASE_DOWN)
    await rejectsFast(() => s.transaction((tx) => tx.users.findById('1')), 'a unit of work', DATABASE_DOWN)
    await rejectsFast(() => r.ping(), 'ping', DATABASE_DOWN)
    assert.equal(await s.nonces.remember(...stampedNow('ck', 'pg-down')), 'fresh', 'Redis still answers')

    await postgres.start()
    assert.equal((await eventually(() => s.users.findById('1')))?.id, '1')
    assert.equal(await s.users.create(user('2')), true)
    await r.ping()
  })

  test('Redis down: nonce and limiter calls reject with StorageUnavailableError quickly; back up: they work again', async (t) => {
    if (skip || !storage || !redis) return t.skip(skip)
    const { stores: s, runtime: r } = storage
    const limiter = r.limiters.create('outage', 100, 900)
    assert.equal((await limiter.hit('k')).isAllowed, true)
    const [first, second] = [appRecord('namer', { name: 'First' }), appRecord('namer', { name: 'Second' })]
    await s.users.create(user('namer'))
    for (const app of [first, second]) await s.apps.create(app)

    await redis.stop()
    await rejectsFast(() => s.nonces.remember(...stampedNow('ck', 'redis-down')), 'nonces.remember', REDIS_DOWN)
    await rejectsFast(() => limiter.hit('k'), 'limiter.hit', REDIS_DOWN)
    await rejectsFast(() => limiter.peek('k'), 'limiter.peek', REDIS_DOWN)
    await rejectsFast(() => r.ping(), 'ping', REDIS_DOWN)
    await rejectsFast(async () => r.generation!(), 'the credentials\' generation', REDIS_DOWN)
    // A credential write cannot move the generation: not told as done, though PostgreSQL holds it.
    await rejectsFast(() => s.users.create(user('redis-down')), 'a credential write', REDIS_DOWN)
    assert.equal((await s.users.findById('redis-down'))?.id, 'redis-down', 'PostgreSQL still answers')
    assert.equal(r.generation!(), undefined, 'the move owed: this process asks the database')
    // A write refused for its own reason says so, whatever the move did.
    await assert.rejects(s.apps.update(second.id, { name: first.name }, NOW), AppNameTakenError)

    await redis.start()
    assert.equal(await eventually(() => s.nonces.remember(...stampedNow('ck', 'redis-back'))), 'fresh')
    // The owed move is made once Redis answers: the generation is read again.
    assert.match(String(await eventually(async () => r.generation!() ?? Promise.reject(new Error('still owed')))), /^\w+:[\w-]+$/)
    assert.equal((await limiter.hit('k2')).isAllowed, true)
    await r.ping()
  })

  test('Redis hanging (not answering at all): calls still fail within two seconds, and recover', async (t) => {
    if (skip || !storage || !redis) return t.skip(skip)
    const { stores: s } = storage
    redis.pause()
    try {
      await rejectsFast(() => s.nonces.remember(...stampedNow('ck', 'hung')), 'nonces.remember on a hung Redis', REDIS_DOWN)
    } finally {
      redis.resume()
    }
    assert.equal(await eventually(() => s.nonces.remember(...stampedNow('ck', 'after-hang'))), 'fresh')
  })

  test('PostgreSQL hanging (not answering at all): the readiness check still answers within its limit, the database down; then up again', async (t) => {
    if (skip || !storage || !postgres) return t.skip(skip)
    const { runtime: r } = storage
    await r.ping()
    postgres.pause()
    let timer: NodeJS.Timeout | undefined
    try {
      // A load balancer's probe must not hang: the readiness limit is 2 s, the pool's own timeouts 5 s and more.
      const started = Date.now()
      const noAnswer = new Promise((resolve) => (timer = setTimeout(resolve, 4_000, 'no answer within 4 s')))
      assert.deepEqual(await Promise.race([r.checkDependencies(), noAnswer]), { database: 'down', redis: 'up', master_key: 'loaded' })
      const elapsed = Date.now() - started
      assert.ok(elapsed < 3_000, `answered after ${elapsed} ms`)
    } finally {
      clearTimeout(timer)
      postgres.resume()
    }
    await eventually(async () => assert.deepEqual(await r.checkDependencies(), { database: 'up', redis: 'up', master_key: 'loaded' }))
  })

  test('Redis restarted from an older snapshot, one that holds the epoch marker but not the last nonces: a nonce used before is not fresh again, nor the generation the same', async (t) => {
    if (skip || !storage || !redis) return t.skip(skip)
    const { stores: s } = storage
    await s.nonces.settleEpoch()
    const use = nonceUse('ck', 'before-restart', { timestampSeconds: Math.floor(Date.now() / 1000) })
    assert.equal(await s.nonces.remember(use, expiryOf(use), Date.now()), 'fresh')
    // The epoch marker under the default key prefix (src/storage/redis/nonce-store.ts).
    const marker = 'latchkey:nonce:epoch'
    const snapshot = await withRedis(redis.url, (client) => client.hgetall(marker))
    // Redis's run id is 40 hex digits: the marker holds it whole, so that no other run is taken for it.
    assert.match(snapshot.run ?? '', /^[0-9a-f]{40}$/, 'the marker names the run it was written under')
    // The credentials' generation as the snapshot holds it: read under the old run, not the same value under the new one.
    const generationKey = 'latchkey:generation'
    const generationBefore = await storage.runtime.generation!()
    const storedGeneration = await withRedis(redis.url, (client) => client.get(generationKey))
    await redis.stop()
    await redis.start()
    await withRedis(redis.url, (client) => client.hset(marker, snapshot))
    assert.equal(await eventually(() => s.nonces.remember(use, expiryOf(use), Date.now())), 'before-epoch')
    await withRedis(redis.url, (client) => client.set(generationKey, storedGeneration!))
    assert.notEqual(await storage.runtime.generation!(), generationBefore, 'the same stored value, another run')
  })

  test('a Redis that takes connections but refuses writes at start (full, noeviction): the open is refused as unavailable, and leaves no connection behind', async (t) => {
    if (skip || !postgres || !redis) return t.skip(skip)
    const connections = () => withRedis(redis!.url, async (client) => (await (client.client('LIST') as Promise<string>)).trim().split('\n').length)
    const before = await connections()
    await withRedis(redis.url, (client) => client.config('SET', 'maxmemory', '1'))
    // A prefix of its own, which the database is told its instances use (given back below).
    const claim = (prefix: string) => runSql(postgres!.url, `delete from redis_generation; insert into redis_generation values (1, '${prefix}')`)
    await claim('full:')
    try {
      // Its nonce epoch marker is not written yet, and writing it is refused.
      const opening = openLayeredStorage({ keyring: testKeyring(), databaseUrl: postgres.url, redisUrl: redis.url, redisKeyPrefix: 'full:' })
      await assert.rejects(opening.then(async (opened) => void (await opened.runtime.close())), (error: Error) => {
        assert.equal(error.name, 'StorageUnavailableError')
        assert.match(error.message, /^Redis unavailable: OOM/)
        return true
      })
      await eventually(async () => assert.equal(await connections(), before), 2_000)
    } finally {
      await withRedis(redis.url, (client) => client.config('SET', 'maxmemory', '0'))
      await claim('latchkey:')
    }
  })

  test('over HTTP an outage is 503 code 130, and /readyz names the dependency that is down', async (t) => {
    if (skip || !storage || !postgres || !redis) return t.skip(skip)
    const domain = createDomainDeps(storage, testDomainSettings())
    const app = await composeApp({
      domain,
      logger: pino({ level: 'silent' }),
      http: { dev: true, publicUrl: undefined, trustProxy: [], cookieSecret: 'test-cookie-secret-0123456789abcdef' },
    })
    try {
      const ready = await app.inject({ method: 'GET', url: '/readyz' })
      assert.equal(ready.statusCode, 200)
      assert.deepEqual(ready.json(), { status: 'ready', dependencies: { database: 'up', redis: 'up', master_key: 'loaded' } })
      await redis.stop()
      const notReady = await app.inject({ method: 'GET', url: '/readyz' })
      assert.equal(notReady.statusCode, 503)
      assert.deepEqual(notReady.json(), {
        status: 'not_ready',
        dependencies: { database: 'up', redis: 'down', master_key: 'loaded' },
        errors: [{ code: 130, message: 'Over capacity' }],
      })
      await redis.start()
      // The client reconnects on its own, within its retry delay: ready again before the next outage.
      await eventually(async () => assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200))
      await postgres.stop()
      const databaseDown = await app.inject({ method: 'GET', url: '/readyz' })
      assert.equal(databaseDown.statusCode, 503)
      assert.deepEqual(databaseDown.json().dependencies, { database: 'down', redis: 'up', master_key: 'loaded' })
      const token = await app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { authorization: `Basic ${Buffer.from('key:secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      })
      assert.equal(token.statusCode, 503)
      assert.equal(token.json().errors[0].code, 130)
      await postgres.start()
      await eventually(async () => assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200))
    } finally {
      await app.close()
    }
  })
})
