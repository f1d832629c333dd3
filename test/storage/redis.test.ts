import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { openLayeredStorage } from './layered.ts'
import { closeRedis, openRedis } from '../../src/storage/redis/client.ts'
import { createRedisGeneration } from '../../src/storage/redis/generation.ts'
import { createRedisLimiterFactory } from '../../src/storage/redis/limiter.ts'
import { createRedisNonceStore } from '../../src/storage/redis/nonce-store.ts'
import {
  SHARED_BACKENDS_SKIP,
  TEST_REDIS_URL,
  createTestRedisPrefix,
  listRedisKeys,
  type TestRedisPrefix,
} from '../helpers/backends.ts'
import { storeContract, type OpenFreshStores } from './contract.ts'
import { nonceContract } from './nonce-contract.ts'
import { testKeyring } from '../helpers/keys.ts'
import { deleteBehindStores, injectedTestServer } from '../helpers/test-app.ts'
import { issueEveryCredential } from '../helpers/fixtures.ts'
import { expiryOf, nonceUse } from '../helpers/nonce-use.ts'
import type { NonceStore } from '../../src/storage/types.ts'


/**
 * remember's arguments for uses stamped at one whole second, once the store's epoch is settled (as
 * serve does at start): the second the store is ready in, so never before the epoch, however long
 * opening the connection took on a busy machine.
 */
async function stampedAfterEpoch(nonces: NonceStore) {
  await nonces.settleEpoch()
  const timestampSeconds = Math.floor(Date.now() / 1000)
  return (consumerKey: string, nonce: string) => {
    const use = nonceUse(consumerKey, nonce, { timestampSeconds })
    return [use, expiryOf(use), Date.now()] as const
  }
}

/**
 * The whole contract with nonces and limiters in Redis (SQLite for the rest, so that this file
 * tests Redis alone): every test on a fresh key prefix, whose keys are deleted afterwards.
 */
if (SHARED_BACKENDS_SKIP) {
  test('Redis nonces and limiters', { skip: SHARED_BACKENDS_SKIP }, () => {})
} else {
  const redisUrl = TEST_REDIS_URL!

  const openFreshWithRedis: OpenFreshStores = async ({ settleNonceEpoch, nonceBudget }) => {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-store-'))
    const keys = createTestRedisPrefix()
    const path = join(dir, 'latchkey.sqlite')
    const { stores, runtime } = await openLayeredStorage({ keyring: testKeyring(), databaseUrl: path, redisUrl, redisKeyPrefix: keys.prefix, settleNonceEpoch, nonceBudget })
    return {
      stores,
      runtime,
      async close() {
        await runtime.close()
        await keys.clean()
        rmSync(dir, { recursive: true, force: true })
      },
      deleteBehindStores: (table, id) => deleteBehindStores(path, table, id),
    }
  }
  storeContract('SQLite + Redis', openFreshWithRedis)
  nonceContract('SQLite + Redis', openFreshWithRedis)

  describe('Redis specifics', () => {
    const prefixes: TestRedisPrefix[] = []
    const freshPrefix = () => {
      const keys = createTestRedisPrefix()
      prefixes.push(keys)
      return keys
    }
    after(async () => {
      for (const keys of prefixes) await keys.clean()
    })

    test('two connections (two instances) share nonces and limits', async () => {
      const keys = freshPrefix()
      const [a, b] = await Promise.all([openRedis(redisUrl), openRedis(redisUrl)])
      try {
        const [noncesA, noncesB] = [createRedisNonceStore(a, keys.prefix), createRedisNonceStore(b, keys.prefix)]
        const stampedNow = await stampedAfterEpoch(noncesA)
        assert.equal(await noncesA.remember(...stampedNow('ck', 'n')), 'fresh')
        assert.equal(await noncesB.remember(...stampedNow('ck', 'n')), 'replayed')
        const limitA = createRedisLimiterFactory(a, keys.prefix).create('shared', 3, 900)
        const limitB = createRedisLimiterFactory(b, keys.prefix).create('shared', 3, 900)
        const states = [await limitA.hit('k'), await limitB.hit('k'), await limitA.hit('k'), await limitB.hit('k')]
        assert.deepEqual(states.map((s) => s.isAllowed), [true, true, true, false])
        assert.equal((await limitB.peek('k')).remaining, 0)
      } finally {
        await Promise.all([closeRedis(a), closeRedis(b)])
      }
    })

    test('of 50 concurrent uses of one nonce exactly one is fresh', async () => {
      const keys = freshPrefix()
      const redis = await openRedis(redisUrl)
      try {
        const nonces = createRedisNonceStore(redis, keys.prefix)
        const stampedNow = await stampedAfterEpoch(nonces)
        const answers = await Promise.all(Array.from({ length: 50 }, () => nonces.remember(...stampedNow('ck', 'same'))))
        assert.equal(answers.filter((answer) => answer === 'fresh').length, 1)
      } finally {
        await closeRedis(redis)
      }
    })

    test('consumer key and nonce cannot run into each other in the key', async () => {
      const keys = freshPrefix()
      const redis = await openRedis(redisUrl)
      try {
        const nonces = createRedisNonceStore(redis, keys.prefix)
        const stampedNow = await stampedAfterEpoch(nonces)
        assert.equal(await nonces.remember(...stampedNow('a:b', 'c')), 'fresh')
        assert.equal(await nonces.remember(...stampedNow('a', 'b:c')), 'fresh')
        assert.equal(await nonces.remember(...stampedNow('a:b', 'c')), 'replayed')
      } finally {
        await closeRedis(redis)
      }
    })

    test('a nonce key expires in Redis when its request can no longer be timely, and every key lives under the prefix', async () => {
      const keys = freshPrefix()
      const redis = await openRedis(redisUrl)
      try {
        const nonces = createRedisNonceStore(redis, keys.prefix)
        await nonces.remember(...(await stampedAfterEpoch(nonces))('ck', 'ttl'))
        await createRedisLimiterFactory(redis, keys.prefix).create('ttl', 5, 60).hit('k')
        const stored = await listRedisKeys(redisUrl, keys.prefix)
        assert.equal(stored.length, 4, stored.join(' '))
        // The epoch marker is the one key that stays: its loss is what it detects.
        assert.deepEqual(
          stored.filter((key) => key.endsWith('epoch')),
          [`${keys.prefix}epoch`],
        )
        // A nonce's count lives until the end of its 30 s count bucket, a little longer than the nonce.
        for (const key of stored.filter((k) => !k.endsWith('epoch'))) {
          const ttl = await redis.pttl(key)
          const most = key.includes(':held:') ? 365_000 : 335_000
          assert.ok(ttl > 0 && ttl <= most, `${key} has a TTL (${ttl} ms)`)
        }
      } finally {
        await closeRedis(redis)
      }
    })

    test("the keys docs/deployment.md names are the keys a serving deployment writes: each key is one it names, each name has a key", async () => {
      // The service as serve builds it, on this pass's PostgreSQL and Redis: a signed call, a bearer
      // token, a credential write.
      const server = await injectedTestServer()
      try {
        const { consumer, token } = await issueEveryCredential(server.domain)
        const verify = await server.signedFetch({ consumer, token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json`, extraHeaders: { 'x-forwarded-proto': 'https' } })
        assert.equal(verify.status, 200, verify.text)
        const prefix = server.redis!.keyPrefix
        const stored = await listRedisKeys(redisUrl, prefix)
        const named = documentedRedisKeys()
        const patternOf = (name: string) =>
          new RegExp(`^${escapeRegExp(prefix)}${name.replace(/^latchkey:/, '').split(/(<[^>]+>)/).map((part) => (part === '<22 characters>' ? '[A-Za-z0-9_-]{22}' : part.startsWith('<') ? '.+' : escapeRegExp(part))).join('')}$`)
        for (const key of stored) assert.ok(named.some((name) => patternOf(name).test(key)), `${key} is not named in docs/deployment.md (${named.join(', ')})`)
        for (const name of named) assert.ok(stored.some((key) => patternOf(name).test(key)), `${name} names no key written: ${stored.join(' ')}`)
      } finally {
        await server.close()
      }
    })

    test("an instance whose clock is behind Redis's keeps counting a nonce as long as it lives, though the 30 s its request arrived in have ended on Redis's clock", async () => {
      const keys = freshPrefix()
      const redis = await openRedis(redisUrl)
      try {
        const nonces = createRedisNonceStore(redis, keys.prefix, { capacity: 1, nearFull: 0.9 })
        // 15 s before the last 30 s boundary Redis's clock has passed: 15 to 45 s behind it. The store
        // is not settled, so its epoch is this instance's first use.
        const nowMs = Math.floor(Date.now() / 30_000) * 30_000 - 15_000
        const use = (consumerKey: string) => nonceUse(consumerKey, 'n', { timestampSeconds: nowMs / 1000 })
        assert.equal(await nonces.remember(use('behind'), expiryOf(use('behind')), nowMs), 'fresh')
        await assert.rejects(nonces.remember(use('other'), expiryOf(use('other')), nowMs), { name: 'StorageUnavailableError', message: 'nonce store full: 1 nonces held' })
      } finally {
        await closeRedis(redis)
      }
    })

    test('a limit window of one second resets', async () => {
      const keys = freshPrefix()
      const redis = await openRedis(redisUrl)
      try {
        const limiter = createRedisLimiterFactory(redis, keys.prefix).create('short', 1, 1)
        assert.equal((await limiter.hit('k')).isAllowed, true)
        const refused = await limiter.hit('k')
        assert.equal(refused.isAllowed, false)
        assert.ok(refused.resetAtMs - Date.now() <= 1_000)
        await new Promise((resolve) => setTimeout(resolve, 1_100))
        assert.equal((await limiter.hit('k')).isAllowed, true)
      } finally {
        await closeRedis(redis)
      }
    })

    test('generation reads asked for while a GET is on its way share the next one, never that one', async () => {
      const keys = freshPrefix()
      const redis = await openRedis(redisUrl)
      try {
        const key = `${keys.prefix}generation`
        const generation = createRedisGeneration(redis, key)
        await generation.read()
        let gets = 0
        const get = redis.get.bind(redis)
        redis.get = ((...args: Parameters<typeof get>) => (gets++, get(...args))) as typeof redis.get
        const first = generation.read()
        // A write on the same connection, behind the first GET: the reads asked for after it must see it.
        const written = redis.set(key, 'moved')
        const later = [generation.read(), generation.read(), generation.read()]
        await written
        const [before, ...after] = await Promise.all([first, ...later])
        assert.doesNotMatch(String(before), /:moved$/)
        assert.deepEqual(after.map((value) => String(value).replace(/^\w+:/, '')), ['moved', 'moved', 'moved'])
        assert.equal(gets, 2, 'one GET for the first read, one for the three asked for while it was on its way')
        // Again, with the second round's shared GET the one on its way.
        const third = generation.read()
        const rewritten = redis.set(key, 'moved again')
        const fourth = generation.read()
        await rewritten
        assert.match(String(await third), /:moved$/)
        assert.match(String(await fourth), /:moved again$/)
        assert.equal(gets, 4)
      } finally {
        await closeRedis(redis)
      }
    })

    test('an unreachable Redis at start is reported as StorageUnavailableError, without the password', async () => {
      await assert.rejects(openRedis('redis://:s3cret@127.0.0.1:1'), (error: Error) => {
        assert.equal(error.name, 'StorageUnavailableError')
        assert.match(error.message, /cannot reach Redis/)
        assert.doesNotMatch(error.message, /s3cret/)
        return true
      })
    })
  })
}

/** The Redis keys the deployment guide's "Keys." paragraph names, as written there (`latchkey:…`). */
function documentedRedisKeys(): string[] {
  const guide = readFileSync(new URL('../../docs/deployment.md', import.meta.url), 'utf8')
  const paragraph = /- \*\*Keys\.\*\*([\s\S]*?)\n- \*\*/.exec(guide)![1]!
  return [...paragraph.matchAll(/`(latchkey:[^`]+)`/g)].map(([, name]) => name!).filter((name) => name !== 'latchkey:')
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

