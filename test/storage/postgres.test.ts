import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import { createSqlStorage } from '../../src/storage/open-stores.ts'
import { openLayeredStorage } from './layered.ts'
import { migrateToLatest } from '../../src/storage/sql/migrations.ts'
import { openPostgres } from '../../src/storage/postgres/open.ts'
import { watchKeyring } from '../../src/storage/sealing/keyring.ts'
import { createSealer } from '../../src/storage/sealing/sealer.ts'
import { appRecord, userRecord } from './contract.ts'
import { SHARED_BACKENDS_SKIP, TEST_DATABASE_URL, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema, deleteRedisKeys, runSql, withSearchPath, type TestSchema } from '../helpers/backends.ts'
import { storeContract, type OpenFreshStores } from './contract.ts'
import { nonceContract } from './nonce-contract.ts'
import { transactionContract } from './transaction-contract.ts'
import { oauth2Contract } from './oauth2-contract.ts'
import { adminContract } from './admin-contract.ts'
import { testKeyring } from '../helpers/keys.ts'
import { eventually } from '../helpers/eventually.ts'
import { deleteBehindStores } from '../helpers/test-app.ts'

/** The first row `query` returns, asked again until there is one (at most five seconds). */
const eventuallyOne = <T>(query: () => Promise<T[]>): Promise<T> =>
  eventually(async () => {
    const [row] = await query()
    assert.ok(row !== undefined, 'no row yet')
    return row
  }, 5_000)

/** The same contract as SQLite, on PostgreSQL: every test in a fresh schema, dropped afterwards. */
if (SHARED_BACKENDS_SKIP) {
  test('PostgreSQL stores', { skip: SHARED_BACKENDS_SKIP }, () => {})
} else {
  const openFresh: OpenFreshStores = async ({ settleNonceEpoch, nonceBudget }) => {
    const schema = await createTestSchema()
    const { stores, runtime } = await openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url, settleNonceEpoch, nonceBudget }).catch(async (error: unknown) => {
      await schema.drop()
      throw error
    })
    return {
      stores,
      runtime,
      async close() {
        await runtime.close()
        await schema.drop()
      },
      deleteBehindStores: (table, id) => deleteBehindStores(schema.url, table, id),
    }
  }
  storeContract('PostgreSQL', openFresh)
  nonceContract('PostgreSQL', openFresh)
  transactionContract('PostgreSQL', openFresh)
  oauth2Contract('PostgreSQL', openFresh)
  adminContract('PostgreSQL', openFresh)

  describe('PostgreSQL specifics', () => {
    const schemas: TestSchema[] = []
    const freshSchema = async () => {
      const schema = await createTestSchema()
      schemas.push(schema)
      return schema
    }
    after(async () => {
      for (const schema of schemas) await schema.drop()
    })

    test('a search_path naming no schema of the database is refused with the way out, nothing created', async () => {
      const missing = `latchkey_test_missing_${process.pid}`
      for (const [path, first] of [[missing, missing], [`${missing},${missing}_too`, missing]]) {
        await assert.rejects(openLayeredStorage({ keyring: testKeyring(), databaseUrl: withSearchPath(TEST_DATABASE_URL!, path!), settleNonceEpoch: false }), (error: Error) => {
          assert.equal(error.name, 'DatabaseRefusedError')
          assert.equal(
            error.message,
            `no schema of the search_path exists in this database (its search_path is "${path}"): create it (CREATE SCHEMA "${first}") or name another in the URL's options=-c search_path=… (docs/deployment.md)`,
          )
          return true
        })
      }
      assert.deepEqual(await runSql(TEST_DATABASE_URL!, `select 1 from information_schema.tables where table_name = 'latchkey_migrations' and table_schema not like 'latchkey_test%' and table_schema <> 'public'`), [])
    })

    test('bigint columns read back as JS numbers', async () => {
      const schema = await freshSchema()
      const { stores, runtime } = await openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url })
      try {
        const user = { id: '7', screenName: 'numbers', name: 'N', passwordHash: 'h', createdAtMs: 1_750_000_000_123 }
        await stores.users.create(user)
        assert.strictEqual((await stores.users.findById('7'))?.createdAtMs, 1_750_000_000_123)
      } finally {
        await runtime.close()
      }
    })

    test('the tables go to the schema of the search_path, and nowhere else', async () => {
      const schema = await freshSchema()
      const { runtime } = await openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url })
      await runtime.close()
      const tables = await runSql<{ table_schema: string; table_name: string }>(
        TEST_DATABASE_URL!,
        `select table_schema, table_name from information_schema.tables where table_name in ('users', 'latchkey_migrations') order by table_schema`,
      )
      const mine = tables.filter((row) => row.table_schema === schema.schema).map((row) => row.table_name).sort()
      assert.deepEqual(mine, ['latchkey_migrations', 'users'])
      assert.ok(!tables.some((row) => row.table_schema === 'public'), 'nothing in public')
    })

    test('a search_path naming no schema that exists is refused in one line that names it and says how to fix it; nothing is created', async () => {
      const missing = `latchkey_absent_${process.pid}`
      await assert.rejects(openLayeredStorage({ keyring: testKeyring(), databaseUrl: withSearchPath(TEST_DATABASE_URL!, missing) }), (error: Error) => {
        assert.equal(error.name, 'DatabaseRefusedError')
        assert.ok(error.message.includes(`search_path is "${missing}"`), error.message)
        assert.ok(error.message.includes(`CREATE SCHEMA "${missing}"`), error.message)
        assert.doesNotMatch(error.message, /\n/)
        return true
      })
      const schemas = await runSql(TEST_DATABASE_URL!, `select 1 from information_schema.schemata where schema_name = '${missing}'`)
      assert.equal(schemas.length, 0)
    })

    test('a second schema in the same database gets its own tables (the migrator does not see the first)', async () => {
      const first = await freshSchema()
      const second = await freshSchema()
      for (const schema of [first, second]) {
        const { stores, runtime } = await openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url })
        await stores.users.create({ id: '1', screenName: schema.schema, name: 'N', passwordHash: 'h', createdAtMs: 1 })
        assert.equal((await stores.users.list()).length, 1)
        await runtime.close()
      }
    })

    // Another tenant's schema, or another test run's, dropped while this one migrates: the migration must not see it.
    test('migrating succeeds while other schemas of the database are created and dropped around it', async () => {
      let churning = true
      const churn = (async () => {
        for (let i = 0; churning; i++) {
          const other = await createTestSchema()
          // Through the base URL: a pool per churned schema's URL would hold dozens of idle
          // connections, and with other files running at once the server's 100 would run out.
          await runSql(TEST_DATABASE_URL!, `create table ${other.schema}.t (id serial primary key, a text, b text, c text)`)
          await other.drop()
        }
      })()
      try {
        for (let i = 0; i < 12; i++) {
          const schema = await freshSchema()
          const db = openPostgres(schema.url, { max: 2 })
          try {
            assert.ok((await migrateToLatest(db)).length > 0)
          } finally {
            await db.destroy()
          }
        }
      } finally {
        churning = false
        await churn
      }
    })

    test('eight instances migrating one fresh schema at once apply each migration exactly once', async () => {
      const schema = await freshSchema()
      const dbs = Array.from({ length: 8 }, () => openPostgres(schema.url, { max: 2 }))
      try {
        const applied = await Promise.all(dbs.map((db) => migrateToLatest(db)))
        const all = applied.flat()
        assert.equal(all.length, new Set(all).size, 'no migration applied twice')
        assert.ok(all.length > 0)
        const rows = await runSql<{ n: number }>(schema.url, 'select count(*)::int as n from latchkey_migrations')
        assert.equal(rows[0]?.n, all.length)
      } finally {
        await Promise.all(dbs.map((db) => db.destroy()))
      }
    })

    test('the lookups of every request run as named prepared statements, and survive a column added under them', async () => {
      const schema = await freshSchema()
      // One connection, so that pg_prepared_statements (per session) shows what the lookups left.
      const db = openPostgres(schema.url, { max: 1 })
      try {
        await migrateToLatest(db)
        const { stores } = createSqlStorage(db, createSealer(watchKeyring(testKeyring())))
        const user = userRecord()
        const app = appRecord(user.id)
        await stores.users.create(user)
        await stores.apps.create(app)
        assert.deepEqual(await stores.apps.findByConsumerKey(app.consumerKey), app)
        assert.deepEqual(await stores.users.findById(user.id), user)
        assert.deepEqual(await stores.credentials.findConsumerWithAccessToken('unknown', 'unknown'), { app: undefined, token: undefined, owner: undefined })
        const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db)
        const names = prepared.rows.filter((row) => row.name.startsWith('latchkey_lookup_'))
        assert.ok(names.some((row) => /from "apps" where "consumer_key_hash" = \$1/.test(row.statement)), JSON.stringify(prepared.rows))
        assert.ok(names.some((row) => /from "users" where "id" = \$1/.test(row.statement)))
        assert.ok(names.some((row) => /left join "access_tokens" on "access_tokens"."token_hash" = \$2/.test(row.statement)))
        assert.ok(!prepared.rows.some((row) => /insert into/.test(row.statement)), 'writes are not kept prepared')

        // A later version's migration adds a column while this instance still runs: a prepared
        // `select *` would now fail with "cached plan must not change result type".
        await sql`alter table apps add column added_by_a_later_version text`.execute(db)
        await sql`alter table users add column added_by_a_later_version text`.execute(db)
        assert.deepEqual(await stores.apps.findByConsumerKey(app.consumerKey), app)
        assert.deepEqual(await stores.users.findById(user.id), user)
      } finally {
        await db.destroy()
      }
    })

    test('its connections name themselves latchkey, for an operator reading pg_stat_activity', async () => {
      const db = openPostgres((await freshSchema()).url, { max: 1 })
      try {
        const { rows } = await sql<{ application_name: string }>`select application_name from pg_stat_activity where pid = pg_backend_pid()`.execute(db)
        assert.deepEqual(rows, [{ application_name: 'latchkey' }])
      } finally {
        await db.destroy()
      }
    })

    test('two instances recording an app\'s signature failures at once leave it no more than it keeps', async () => {
      const schema = await freshSchema()
      const { stores, runtime } = await openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url, settleNonceEpoch: false })
      try {
        const user = userRecord()
        const app = appRecord(user.id)
        await stores.users.create(user)
        await stores.apps.create(app)
        // Each write waits 300 ms between its prune and its commit: without an order between them,
        // each would prune before the other's row was committed, and both rows would stay.
        await runSql(
          schema.url,
          `create function slow_commit() returns trigger language plpgsql as $$ begin perform pg_sleep(0.3); return null; end $$;
           create trigger slow_commit after delete on signature_failures for each statement execute function slow_commit()`,
        )
        const failure = (atMs: number) => ({ atMs, method: 'POST', url: 'https://api.example/oauth/request_token', reason: 'bad_signature' as const })
        const bounds = { keep: 1, maxAgeMs: 3_600_000 }
        const now = Date.now()
        await Promise.all([stores.signatureFailures.record(app.id, failure(now), bounds), stores.signatureFailures.record(app.id, failure(now + 1), bounds)])
        const rows = await runSql<{ count: string }>(schema.url, `select count(*) from signature_failures where app_id = '${app.id}'`)
        assert.deepEqual(rows, [{ count: '1' }])
      } finally {
        await runtime.close()
      }
    })

    test('a connection lost inside a unit of work, between two statements, fails that unit as unavailable; the process goes on, and so do the stores', async () => {
      const schema = await freshSchema()
      const { stores, runtime } = await openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url, settleNonceEpoch: false })
      const holder = new pg.Client({ connectionString: schema.url })
      await holder.connect()
      try {
        const owner = userRecord()
        await stores.users.create(owner)
        const [{ pid: holderPid }] = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [{ pid: number }]
        await holder.query('begin; lock table users in access exclusive mode')
        let openGate = () => {}
        const gate = new Promise<void>((resolve) => (openGate = resolve))
        const unit = stores.transaction(async (tx) => {
          await tx.users.findById(owner.id)
          await gate
          return tx.users.findById(owner.id)
        })
        unit.catch(() => {})
        // The unit's first statement waits on the held table: that is how its connection is found.
        const unitPid = await eventuallyOne(() => runSql<{ pid: number }>(schema.url, `select pid from pg_stat_activity where ${holderPid} = any(pg_blocking_pids(pid))`))
        await holder.query('commit')
        await eventuallyOne(() => runSql(schema.url, `select 1 from pg_stat_activity where pid = ${unitPid.pid} and state = 'idle in transaction'`))
        await runSql(schema.url, `select pg_terminate_backend(${unitPid.pid})`)
        // The client hears of the lost connection while no statement of its runs.
        await eventuallyOne(() => runSql(schema.url, `select 1 where not exists (select 1 from pg_stat_activity where pid = ${unitPid.pid})`))
        await new Promise((resolve) => setTimeout(resolve, 200))
        openGate()
        await assert.rejects(unit, (error: Error) => {
          assert.equal(error.name, 'StorageUnavailableError', error.message)
          return true
        })
        assert.equal((await stores.users.findById(owner.id))?.id, owner.id)
      } finally {
        await holder.end()
        await runtime.close()
      }
    })

    test('a connection lent again and again is given its lost-connection listener once (no MaxListenersExceededWarning)', async () => {
      const schema = await freshSchema()
      const warnings: string[] = []
      const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`)
      // Listening from before the open: its own statements lend connections too.
      process.on('warning', onWarning)
      try {
        const { stores, runtime } = await openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url, settleNonceEpoch: false })
        try {
          // One after another: the pool lends its one idle connection each time.
          for (let i = 0; i < 30; i++) await stores.transaction((tx) => tx.users.findById('1'))
          await new Promise((resolve) => setImmediate(resolve))
          assert.deepEqual(warnings.filter((warning) => /MaxListeners/.test(warning)), [])
        } finally {
          await runtime.close()
        }
      } finally {
        process.off('warning', onWarning)
      }
    })

    test('a database whose instances share their generation in Redis refuses a process without Redis, or with another key prefix, until told no instance uses it', async () => {
      const schema = await freshSchema()
      const keys = createTestRedisPrefix()
      const open = (redisUrl?: string) =>
        openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url, settleNonceEpoch: false, ...(redisUrl ? { redisUrl, redisKeyPrefix: keys.prefix } : {}) })
      try {
        await (await open()).runtime.close()
        await (await open(TEST_REDIS_URL)).runtime.close()
        await assert.rejects(open(), (error: Error) => {
          assert.equal(error.name, 'DatabaseRefusedError')
          assert.match(error.message, new RegExp(`^the instances on this database share their credentials' generation in Redis \\(key prefix "${keys.prefix}"\\): give this process the same redis setting`))
          return true
        })
        const otherPrefix = openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url, settleNonceEpoch: false, redisUrl: TEST_REDIS_URL, redisKeyPrefix: `${keys.prefix}other:` })
        await assert.rejects(otherPrefix.then(async (opened) => void (await opened.runtime.close())), /give this process their key prefix \(--redis-key-prefix\), not "latchkey_test\S+:other:"/)
        await runSql(schema.url, 'delete from redis_generation')
        await (await open()).runtime.close()
      } finally {
        await keys.clean()
      }
    })

    test('a process whose Redis is not the serving instances\' one is refused, whatever makes it so: another database number, another marker, a Redis without the marker while they serve', async () => {
      const schema = await freshSchema()
      const keys = createTestRedisPrefix()
      const otherDb = new URL(TEST_REDIS_URL!)
      otherDb.pathname = '/1'
      const open = (redisUrl: string, serves: boolean) =>
        openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url, redisUrl, redisKeyPrefix: keys.prefix, settleNonceEpoch: serves })
      const refusedAs = (because: RegExp) => (error: Error) => {
        assert.equal(error.name, 'DatabaseRefusedError')
        assert.match(error.message, because)
        return true
      }
      const opened = (storage: Promise<{ runtime: { close(): Promise<void> } }>) => storage.then((s) => s.runtime.close())
      try {
        const serving = await open(TEST_REDIS_URL!, true)
        try {
          // The CLI: the same prefix on database 1 of the same server, while an instance serves on 0.
          await assert.rejects(opened(open(otherDb.href, false)), refusedAs(/give this process their Redis: this one does not hold their marker/))
          await assert.rejects(opened(open(otherDb.href, true)), refusedAs(/does not hold their marker/))
          // The same Redis is taken, by the CLI and by another instance alike.
          await opened(open(TEST_REDIS_URL!, false))
          await opened(open(TEST_REDIS_URL!, true))
        } finally {
          await serving.runtime.close()
        }
        // No instance serving (their last beat long ago): an instance on an empty Redis claims the home, and the old Redis's marker is then another's.
        await runSql(schema.url, "update redis_generation set beat_at = now() - interval '1 hour'")
        await opened(open(otherDb.href, false))
        await opened(open(otherDb.href, true))
        await assert.rejects(opened(open(TEST_REDIS_URL!, false)), refusedAs(/this one holds another marker \(another server or database number\)/))
        // A Redis that lost its keys while an instance serves: the instance puts the marker back …
        const loseMarker = () => deleteRedisKeys(otherDb.href, `${keys.prefix}generation-home`)
        const serving2 = await open(otherDb.href, true)
        try {
          await loseMarker()
          await eventually(() => opened(open(otherDb.href, false)), 15_000)
        } finally {
          await serving2.runtime.close()
        }
        // … and until it has, a process on it is refused (here that instance's last beat was a moment ago).
        await loseMarker()
        await assert.rejects(opened(open(otherDb.href, false)), refusedAs(/does not hold their marker/))
        await assert.rejects(opened(open(otherDb.href, true)), refusedAs(/does not hold their marker/))
      } finally {
        await keys.clean()
        await deleteRedisKeys(otherDb.href, keys.prefix)
      }
    })

    test('instances starting at once on a new database agree where the generation is kept: all on one Redis start, of two Redises one does', async () => {
      const keys = createTestRedisPrefix()
      const otherDb = new URL(TEST_REDIS_URL!)
      otherDb.pathname = '/1'
      const open = (databaseUrl: string, redisUrl: string) => openLayeredStorage({ keyring: testKeyring(), databaseUrl, redisUrl, redisKeyPrefix: keys.prefix, settleNonceEpoch: true })
      const closeAll = (results: PromiseSettledResult<Awaited<ReturnType<typeof open>>>[]) =>
        Promise.all(results.map((result) => (result.status === 'fulfilled' ? result.value.runtime.close() : undefined)))
      try {
        const oneRedis = (await freshSchema()).url
        const together = await Promise.allSettled([open(oneRedis, TEST_REDIS_URL!), open(oneRedis, TEST_REDIS_URL!), open(oneRedis, TEST_REDIS_URL!)])
        await closeAll(together)
        assert.deepEqual(together.map((result) => result.status), ['fulfilled', 'fulfilled', 'fulfilled'])
        await keys.clean()
        const twoRedises = (await freshSchema()).url
        const apart = await Promise.allSettled([open(twoRedises, TEST_REDIS_URL!), open(twoRedises, otherDb.href)])
        await closeAll(apart)
        assert.deepEqual(apart.map((result) => result.status).sort(), ['fulfilled', 'rejected'])
      } finally {
        await keys.clean()
        await deleteRedisKeys(otherDb.href, keys.prefix)
      }
    })

    test('a connection lost while the migrations run is reported as StorageUnavailableError, not as a failed migration', async () => {
      const schema = await freshSchema()
      const db = openPostgres(schema.url, { max: 1 })
      await migrateToLatest(db).finally(() => db.destroy())
      const holder = new pg.Client({ connectionString: schema.url })
      await holder.connect()
      try {
        // The migrator reads its table inside its transaction: held here, it waits there until its connection is ended.
        const [{ pid }] = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [{ pid: number }]
        await holder.query('begin; lock table latchkey_migrations in access exclusive mode')
        const opening = openLayeredStorage({ keyring: testKeyring(), databaseUrl: schema.url, settleNonceEpoch: false })
        opening.catch(() => {})
        await eventuallyOne(() => runSql(schema.url, `select pg_terminate_backend(pid) from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`))
        await assert.rejects(opening, (error: Error) => {
          assert.equal(error.name, 'StorageUnavailableError', error.message)
          assert.match(error.message, /^cannot reach PostgreSQL at postgres:\/\/\S+: /)
          return true
        })
      } finally {
        await holder.end()
      }
    })

    test('an unreachable server at start is reported as StorageUnavailableError, without the password', async () => {
      await assert.rejects(openLayeredStorage({ keyring: testKeyring(), databaseUrl: 'postgres://latchkey:s3cret@127.0.0.1:1/none' }), (error: Error) => {
        assert.equal(error.name, 'StorageUnavailableError')
        assert.match(error.message, /cannot reach PostgreSQL/)
        assert.doesNotMatch(error.message, /s3cret/)
        return true
      })
    })
  })
}
