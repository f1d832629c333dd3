// The validity cache (src/storage/validity-cache.ts) and the embedded database's generation
// (src/storage/sqlite/generation.ts): an answer is reused only while nothing may have been written.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import { createDomainDeps } from '../../src/composition/root.ts'
import { openStorage } from '../../src/storage/open-stores.ts'
import { sqliteGeneration } from '../../src/storage/sqlite/generation.ts'
import { createValidityCache, withCachedLookups, withValidityCache } from '../../src/storage/validity-cache.ts'
import { issueEveryCredential } from '../helpers/fixtures.ts'
import { userRecord } from './contract.ts'
import { testKeyring } from '../helpers/keys.ts'
import { testDomainSettings } from '../helpers/test-app.ts'
import { SHARED_BACKENDS_SKIP, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema, deleteRedisKeys } from '../helpers/backends.ts'

/** A lookup that answers what `rows` holds now and counts how often it was asked. */
function countingLookup(rows: Map<string, { name: string } | undefined>) {
  const store = {
    asked: 0,
    async find(key: string) {
      store.asked++
      return rows.get(key)
    },
  }
  return store
}

/** A request token of the app: a write to a table no cached lookup reads. */
const requestToken = (appId: string) => ({
  token: 'request-token',
  secret: 'request-secret',
  appId,
  callback: 'oob',
  accessLevel: 'read' as const,
  status: 'issued' as const,
  userId: null,
  verifierFailures: 0,
  createdAtMs: Date.now(),
  expiresAtMs: Date.now() + 60_000,
})

describe('validity cache', () => {
  test('answers from the cache while the generation stays, unknown keys too; asks again once it moves', async () => {
    let generation = 1
    const rows = new Map([['a', { name: 'first' }]])
    const lookup = countingLookup(rows)
    const store = withValidityCache(lookup, 'things', ['find'], createValidityCache(() => generation))
    assert.deepEqual(await store.find('a'), { name: 'first' })
    assert.equal(await store.find('b'), undefined)
    assert.deepEqual(await store.find('a'), { name: 'first' })
    assert.equal(await store.find('b'), undefined)
    assert.equal(lookup.asked, 2, 'one question per key')
    rows.set('a', { name: 'second' })
    rows.set('b', { name: 'new' })
    generation = 2
    assert.deepEqual(await store.find('a'), { name: 'second' })
    assert.deepEqual(await store.find('b'), { name: 'new' })
    assert.equal(lookup.asked, 4)
  })

  test('asks the store every time while the generation cannot be told (a transaction is open); says who answered each lookup', async () => {
    let generation: number | undefined = undefined
    const lookup = countingLookup(new Map([['a', { name: 'first' }]]))
    const answered: string[] = []
    const store = withValidityCache(lookup, 'things', ['find'], createValidityCache(() => generation, { onLookup: (result) => void answered.push(result) }))
    await store.find('a')
    await store.find('a')
    assert.equal(lookup.asked, 2)
    generation = 7
    await store.find('a')
    await store.find('a')
    assert.equal(lookup.asked, 3)
    assert.deepEqual(answered, ['bypass', 'bypass', 'miss', 'hit'])
  })

  test('an answer read while a write happened is not kept', async () => {
    let generation = 1
    const rows = new Map([['a', { name: 'before' }]])
    const store = {
      async find(key: string) {
        const found = rows.get(key)
        // A write commits while the lookup is on its way.
        rows.set('a', { name: 'after' })
        generation++
        return found
      },
    }
    const cached = withValidityCache(store, 'things', ['find'], createValidityCache(() => generation))
    assert.deepEqual(await cached.find('a'), { name: 'before' })
    assert.deepEqual(await cached.find('a'), { name: 'after' }, 'not the answer read across the write')
  })

  test('an answer read across a write is not kept, even when another lookup saw the write first', async () => {
    let generation = 1
    const rows = new Map([['a', { name: 'before' }], ['b', { name: 'other' }]])
    let letSlowFinish: () => void = () => {}
    const slowRead = new Promise<void>((resolve) => (letSlowFinish = resolve))
    const store = {
      async find(key: string) {
        const found = rows.get(key)
        if (key === 'a' && found?.name === 'before') await slowRead
        return found
      },
    }
    const cached = withValidityCache(store, 'things', ['find'], createValidityCache(() => generation))
    const slow = cached.find('a')
    // While the read of 'a' is on its way a write commits, and a lookup of 'b' sees its generation.
    rows.set('a', { name: 'after' })
    generation = 2
    assert.deepEqual(await cached.find('b'), { name: 'other' })
    letSlowFinish()
    assert.deepEqual(await slow, { name: 'before' })
    assert.deepEqual(await cached.find('a'), { name: 'after' }, 'not the answer read across the write')
  })

  test('a generation a round trip away (Redis): read at every lookup, the same rules', async () => {
    let generation = 'run-a:1'
    let reads = 0
    const rows = new Map([['a', { name: 'first' }]])
    const lookup = countingLookup(rows)
    const store = withValidityCache(lookup, 'things', ['find'], createValidityCache(async () => (reads++, generation)))
    assert.deepEqual(await store.find('a'), { name: 'first' })
    assert.deepEqual(await store.find('a'), { name: 'first' })
    assert.equal(lookup.asked, 1)
    assert.equal(reads, 2, 'read at every lookup')
    rows.set('a', { name: 'second' })
    generation = 'run-b:1'
    assert.deepEqual(await store.find('a'), { name: 'second' }, 'another value, whatever its form')
    assert.equal(lookup.asked, 2)
  })

  test("confirmed by admissions (Redis): no read of its own; answers at the last generation an admission read, each answer current only at the generation it was filled at", async () => {
    let reads = 0
    let owed = false
    const rows = new Map([['a', { name: 'first' }]])
    const lookup = countingLookup(rows)
    const seen: string[] = []
    const cache = createValidityCache(async () => (reads++, 'never'), { onLookup: (result) => seen.push(result), confirmedByAdmissions: { isOwed: () => owed } })
    const store = withValidityCache(lookup, 'things', ['find'], cache, new Set(['find']))
    // Cold: from the store, and not current at any generation: the request looks it up again once its admission has read one.
    const cold = (await store.find('a'))!
    assert.equal(cache.isCurrent(cold, 'run:1'), false)
    cache.learn('run:1')
    const filled = (await store.find('a'))!
    const again = (await store.find('a'))!
    assert.equal(again, filled, 'the second lookup is the kept answer')
    assert.equal(cache.isCurrent(filled, 'run:1'), true)
    assert.equal(lookup.asked, 2)
    assert.equal(reads, 0, 'the generation is never read by a lookup')
    // A write elsewhere moves the generation; the next admission reads it: the kept answer is not current, and is gone.
    rows.set('a', { name: 'second' })
    assert.equal(cache.isCurrent(filled, 'run:2'), false)
    cache.learn('run:2')
    const refilled = (await store.find('a'))!
    assert.deepEqual(refilled, { name: 'second' })
    assert.equal(cache.isCurrent(refilled, 'run:2'), true)
    assert.equal(cache.isCurrent(filled, 'run:2'), false, 'an answer keeps the generation it was filled at')
    // While a move of this process is owed, every lookup asks the store.
    owed = true
    await store.find('a')
    await store.find('a')
    assert.equal(lookup.asked, 5)
    assert.deepEqual(seen, ['bypass', 'miss', 'hit', 'miss', 'bypass', 'bypass'])
    // A lookup the admissions do not confirm still reads the generation itself.
    owed = false
    const readFirst = withValidityCache(lookup, 'others', ['find'], cache)
    await readFirst.find('a')
    assert.equal(reads, 1)
  })

  test('an answer loaded while an admission saw the generation move is not kept', async () => {
    let release = () => {}
    const rows = new Map([['a', { name: 'first' }]])
    const cache = createValidityCache(() => undefined, { confirmedByAdmissions: { isOwed: () => false } })
    const slow = {
      async find(key: string) {
        await new Promise<void>((resolve) => (release = resolve))
        return rows.get(key)
      },
    }
    const store = withValidityCache(slow, 'things', ['find'], cache, new Set(['find']))
    cache.learn('run:1')
    const pending = store.find('a')
    cache.learn('run:2')
    release()
    const answer = (await pending)!
    assert.equal(cache.isCurrent(answer, 'run:1'), false)
    assert.equal(cache.isCurrent(answer, 'run:2'), false, 'loaded under run:1, never kept under run:2')
  })

  test('works without an observer, the generation unknown or known', async () => {
    let generation: number | undefined = undefined
    const lookup = countingLookup(new Map([['a', { name: 'first' }]]))
    const store = withValidityCache(lookup, 'things', ['find'], createValidityCache(() => generation))
    assert.deepEqual(await store.find('a'), { name: 'first' })
    generation = 1
    assert.deepEqual(await store.find('a'), { name: 'first' })
    assert.deepEqual(await store.find('a'), { name: 'first' })
    assert.equal(lookup.asked, 2)
  })

  test('keys of different arguments never meet, nor those of different stores or methods', async () => {
    const cache = createValidityCache(() => 1)
    const pairs = withValidityCache({ find: async (a: string, b: string) => `${a}|${b}` }, 'pairs', ['find'], cache)
    const other = withValidityCache({ find: async (a: string, b: string) => `other ${a}|${b}` }, 'other', ['find'], cache)
    // Equal when joined with the separator alone, or with the length before each.
    assert.equal(await pairs.find('a\u0000b', 'c'), 'a\u0000b|c')
    assert.equal(await pairs.find('a', 'b\u0000c'), 'a|b\u0000c')
    assert.equal(await pairs.find('a\u00001:b', 'c'), 'a\u00001:b|c')
    assert.equal(await pairs.find('a', 'b\u00001:c'), 'a|b\u00001:c')
    assert.equal(await pairs.find('a', 'b'), 'a|b')
    assert.equal(await other.find('a', 'b'), 'other a|b')
  })

  test('holds at most its number of entries, the least recently used leaving first', async () => {
    const lookup = countingLookup(new Map())
    const store = withValidityCache(lookup, 'things', ['find'], createValidityCache(() => 1, { entries: 2 }))
    await store.find('a')
    await store.find('b')
    await store.find('a')
    await store.find('c')
    assert.equal(lookup.asked, 3)
    await store.find('a')
    assert.equal(lookup.asked, 3, 'a was used last: kept')
    await store.find('b')
    assert.equal(lookup.asked, 4, 'b left for c')
  })

  test('answers are frozen: no request can change what the next one reads', async () => {
    const store = withValidityCache({ find: async () => ({ app: { urls: ['https://a.example'] } }) }, 'things', ['find'], createValidityCache(() => 1))
    const found = await store.find()
    assert.throws(() => {
      found.app.urls.push('https://b.example')
    }, TypeError)
    assert.deepEqual(await store.find(), { app: { urls: ['https://a.example'] } })
  })
})

describe('the embedded database generation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-generation-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  test("the stores' cached lookups are the verify path's and the session check's, each answered from the cache the second time", async () => {
    const storage = await openStorage({ keyring: testKeyring(), databaseUrl: join(dir, 'lookups.sqlite'), settleNonceEpoch: false })
    try {
      const domain = createDomainDeps(storage, testDomainSettings())
      const { app, user, token, bearer, userAccessToken } = await issueEveryCredential(domain)
      const answered: string[] = []
      const s = withCachedLookups(storage.stores, createValidityCache(storage.runtime.generation!, { onLookup: (result) => void answered.push(result) }))
      const lookups: Array<[string, () => Promise<unknown>]> = [
        ['users.findById', () => s.users.findById(user.id)],
        ['apps.findById', () => s.apps.findById(app.id)],
        ['apps.findByConsumerKey', () => s.apps.findByConsumerKey(app.consumerKey)],
        ['credentials.findConsumerWithAccessToken', () => s.credentials.findConsumerWithAccessToken(app.consumerKey, token.key)],
        ['credentials.findBearerTokenWithApp', () => s.credentials.findBearerTokenWithApp(bearer)],
        ['apps.findByConsumerKey, among rotated-out keys too', () => s.apps.findByConsumerKey('no-such-key')],
        ['oauth2Grants.findToken', () => s.oauth2Grants.findToken(userAccessToken)],
        ['bearerTokens.findLive, what a repeated POST /oauth2/token hands out', () => s.bearerTokens.findLive(app.id)],
      ]
      for (const [name, lookup] of lookups) {
        answered.length = 0
        const first = await lookup()
        assert.deepEqual(await lookup(), first, name)
        assert.deepEqual(answered, ['miss', 'hit'], name)
      }
      answered.length = 0
      await s.users.findByScreenName(user.screenName)
      await s.apps.list()
      assert.deepEqual(answered, [], 'other reads go to the database')
    } finally {
      await storage.runtime.close()
    }
  })

  test('while a unit of work of this process holds a transaction, a kept answer is still used; what the unit commits is seen once it has', async () => {
    const storage = await openStorage({ keyring: testKeyring(), databaseUrl: join(dir, 'in-transaction.sqlite'), settleNonceEpoch: false })
    try {
      const domain = createDomainDeps(storage, testDomainSettings())
      const { app } = await issueEveryCredential(domain)
      const answered: string[] = []
      const s = withCachedLookups(storage.stores, createValidityCache(storage.runtime.generation!, { onLookup: (result) => void answered.push(result) }))
      await s.apps.findById(app.id)
      // Inside the unit the connection is its own: a lookup the cache could not answer would wait for the commit.
      let timer: NodeJS.Timeout | undefined
      const nobodyAnswers = new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), 2_000)))
      const during = await storage.stores.transaction(async (tx) => {
        await tx.apps.update(app.id, { name: 'Renamed in a unit' }, Date.now())
        return Promise.race([s.apps.findById(app.id), nobodyAnswers])
      })
      clearTimeout(timer)
      assert.equal(typeof during === 'object' && during?.name, app.name, 'the committed answer, from the cache')
      assert.equal((await s.apps.findById(app.id))?.name, 'Renamed in a unit')
      assert.deepEqual(answered, ['miss', 'hit', 'miss'])
    } finally {
      await storage.runtime.close()
    }
  })

  test('an in-memory database cannot tell its generation while a transaction is open', () => {
    const memory = new Sqlite(':memory:')
    memory.exec('create table credential_generation (id integer primary key, value integer not null); insert into credential_generation values (1, 5)')
    const generation = sqliteGeneration(memory)
    assert.equal(generation.read(), 5)
    memory.exec('begin')
    assert.equal(generation.read(), undefined)
    memory.exec('rollback')
    assert.equal(generation.read(), 5)
    generation.close()
    memory.close()
  })

  test('moves on every write to a credential table, from any connection; not on audit rows, request tokens or other tables; the committed value inside a transaction', async () => {
    const path = join(dir, 'moves.sqlite')
    const storage = await openStorage({ keyring: testKeyring(), databaseUrl: path, settleNonceEpoch: false })
    const domain = createDomainDeps(storage, testDomainSettings())
    // The server's connection: the storage above stands for the CLI, another process.
    const server = new Sqlite(path)
    try {
      const probe = sqliteGeneration(server)
      const generation = probe.read
      const start = generation()
      assert.equal(generation(), start, 'nothing written: the same')
      const { app } = await issueEveryCredential(domain)
      const issued = generation()
      assert.notEqual(issued, start, "another connection's credentials")
      await storage.stores.audit.record({ atMs: Date.now(), event: 'app.updated', appId: app.id, userId: null, address: null, detail: null })
      await storage.stores.requestTokens.create(requestToken(app.id))
      server.prepare('insert into sign_in_unlocks (throttle_key, unlocked_at_ms) values (?, ?)').run('account:someone', 1)
      server.prepare('select * from apps').all()
      assert.equal(generation(), issued, 'an audit row, a request token, an unlock, a read: the same')
      const perTable: Record<string, string> = {
        users: 'update users set name = name',
        apps: 'update apps set name = name',
        access_tokens: 'update access_tokens set user_id = user_id',
        bearer_tokens: 'update bearer_tokens set app_id = app_id',
        oauth2_grants: 'update oauth2_grants set scopes = scopes',
        oauth2_tokens: 'update oauth2_tokens set kind = kind',
        previous_consumer_keys: "insert into previous_consumer_keys select id, 'old-key', 'old-hash-' || id, 'sealed', 0 from apps",
      }
      for (const [table, statement] of Object.entries(perTable)) {
        const before = generation()
        server.prepare(statement).run()
        assert.notEqual(generation(), before, `this connection's write to ${table}`)
      }
      const beforeDelete = generation()
      server.prepare('delete from previous_consumer_keys').run()
      assert.notEqual(generation(), beforeDelete, 'a delete')
      const committed = generation()
      server.exec('begin')
      server.prepare('update apps set name = name').run()
      assert.equal(generation(), committed, 'a transaction of its own is open: the committed value')
      server.exec('rollback')
      assert.equal(generation(), committed, 'rolled back: nothing moved')
      server.exec('begin')
      server.prepare('update apps set name = name').run()
      server.exec('commit')
      assert.notEqual(generation(), committed, 'committed: moved')
      probe.close()
    } finally {
      server.close()
      await storage.runtime.close()
    }
  })
})

describe('the PostgreSQL deployment\'s generation, in Redis', { skip: SHARED_BACKENDS_SKIP }, () => {
  test("one instance's cache sees every credential write of another, outside a unit or in one; not a write of other tables; nor an evicted generation", async () => {
    const schema = await createTestSchema()
    const keys = createTestRedisPrefix()
    const open = () => openStorage({ keyring: testKeyring(), databaseUrl: schema.url, redisUrl: TEST_REDIS_URL, redisKeyPrefix: keys.prefix, settleNonceEpoch: false })
    const [reader, writer] = [await open(), await open()]
    try {
      // The writer as the service writes: through the store layers, which move the shared generation.
      const writing = createDomainDeps(writer, testDomainSettings())
      const { app, token } = await issueEveryCredential(writing)
      const answered: string[] = []
      const s = withCachedLookups(reader.stores, createValidityCache(reader.runtime.generation!, { onLookup: (result) => void answered.push(result) }))
      /** How the reader's lookup of the token was answered, and whether the token was revoked. */
      const look = async () => {
        answered.length = 0
        const found = await s.credentials.findConsumerWithAccessToken(app.consumerKey, token.key)
        return `${answered.join()} ${found.token?.revokedAtMs === null ? 'live' : 'revoked'} ${found.app?.isSuspended ? 'suspended' : 'active'}`
      }
      assert.equal(await look(), 'miss live active')
      assert.equal(await look(), 'hit live active')
      await writing.stores.requestTokens.create(requestToken(app.id))
      await writing.stores.transaction((tx) => tx.audit.record({ atMs: Date.now(), event: 'app.updated', appId: app.id, userId: null, address: null, detail: null }))
      assert.equal(await look(), 'hit live active', 'a request token, a unit writing an audit row: the same generation')
      await writing.stores.transaction((tx) => tx.apps.update(app.id, { isSuspended: true, suspendedBy: 'operator' }, Date.now()))
      assert.equal(await look(), 'miss live suspended', 'a unit that wrote an app')
      assert.equal(await look(), 'hit live suspended')
      await writing.stores.accessTokens.revoke(token.key, Date.now())
      assert.equal(await look(), 'miss revoked suspended', 'a write outside a unit')
      assert.equal(await look(), 'hit revoked suspended')
      const evict = () => deleteRedisKeys(TEST_REDIS_URL!, `${keys.prefix}generation`)
      await evict()
      assert.equal(await look(), 'miss revoked suspended', 'the generation evicted')
      assert.equal(await look(), 'hit revoked suspended')
      await writing.stores.apps.update(app.id, { isSuspended: false }, Date.now())
      await evict()
      assert.equal(await look(), 'miss revoked active', 'filled while it was missing, then moved and evicted again')
      await writing.stores.apps.update(app.id, { isSuspended: true, suspendedBy: 'operator' }, Date.now())
      // Evicted again, the generation never comes back to a value a cache was filled at.
      const evictedThenMoved = async () => {
        await deleteRedisKeys(TEST_REDIS_URL!, `${keys.prefix}generation`)
        await writing.stores.users.create(userRecord())
      }
      await evictedThenMoved()
      assert.equal(await look(), 'miss revoked suspended')
      assert.equal(await look(), 'hit revoked suspended')
      await writing.stores.apps.update(app.id, { isSuspended: false }, Date.now())
      await evictedThenMoved()
      assert.equal(await look(), 'miss revoked active', 'moved as often since its eviction as before it')
    } finally {
      await Promise.all([reader.runtime.close(), writer.runtime.close()])
      await schema.drop()
      await keys.clean()
    }
  })
})
