// Issue 32: `latchkey copy --to` moves the embedded database to PostgreSQL (and back): every
// credential issued on the source works against a server on the target. PostgreSQL + Redis groups.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { createDomainDeps } from '../../src/composition/root.ts'
import { openStorage } from '../../src/storage/open-stores.ts'
import { COPIED_TABLES } from '../../src/storage/copy.ts'
import { GENERATION_TABLE } from '../../src/storage/sqlite/generation.ts'
import { SHARED_BACKENDS_SKIP, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema, runSql, type TestRedisPrefix, type TestSchema } from '../helpers/backends.ts'
import { runCli } from '../helpers/cli.ts'
import { issueEveryCredential } from '../helpers/fixtures.ts'
import { testKeyring } from '../helpers/keys.ts'
import { send, signedFetch } from '../helpers/oauth1-client.ts'
import { startServe } from '../helpers/serve-process.ts'
import { testDomainSettings } from '../helpers/test-app.ts'
import { tableNames } from '../helpers/stored-rows.ts'

interface Issued {
  consumer: { key: string; secret: string }
  token: { key: string; secret: string }
  screenName: string
  bearer: string
  userAccessToken: string
}

/** Credentials of every kind, issued on the SQLite file at `path` through the use cases. */
async function issueOn(path: string): Promise<Issued> {
  const storage = await openStorage({ keyring: testKeyring(), databaseUrl: path, settleNonceEpoch: false })
  const domain = createDomainDeps(storage, testDomainSettings())
  try {
    const { user, consumer, token, bearer, userAccessToken } = await issueEveryCredential(domain)
    return { consumer, token, screenName: user.screenName, bearer, userAccessToken }
  } finally {
    await storage.runtime.close()
  }
}

/** Each credential answers 200 on a `serve` of `database` (and Redis, for PostgreSQL). */
async function assertWorksOn(serveArgs: string[], issued: Issued): Promise<void> {
  const server = await startServe(['--port', '0', '--dev', ...serveArgs])
  try {
    const verified = await signedFetch({ consumer: issued.consumer, token: issued.token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
    assert.equal(verified.status, 200, verified.text)
    assert.equal(verified.json.screen_name, issued.screenName)
    const bearer = await send({ method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json`, headers: { authorization: `Bearer ${issued.bearer}` } })
    assert.equal(bearer.status, 200, bearer.text)
    const me = await send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization: `Bearer ${issued.userAccessToken}` } })
    assert.equal(me.status, 200, me.text)
    assert.equal(me.json.data.username, issued.screenName)
  } finally {
    assert.equal(await server.stop(), 0)
  }
}

describe('latchkey copy', { skip: SHARED_BACKENDS_SKIP, timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-copy-'))
  let schema: TestSchema
  let keys: TestRedisPrefix
  before(async () => {
    schema = await createTestSchema()
    keys = createTestRedisPrefix()
  })
  after(async () => {
    await schema?.drop()
    await keys?.clean()
    rmSync(dir, { recursive: true, force: true })
  })

  test('names every table the migrations make, parents before children', async () => {
    const migrated = join(dir, 'tables.sqlite')
    const { runtime } = await openStorage({ keyring: testKeyring(), databaseUrl: migrated, settleNonceEpoch: false })
    await runtime.close()
    const tables = (await tableNames(migrated)).filter((name) => !name.startsWith('latchkey_migration') && name !== GENERATION_TABLE)
    assert.deepEqual(COPIED_TABLES.map((t) => t.table).sort(), tables.sort())
  })

  test('SQLite to PostgreSQL and back: each credential issued on the source works on a server of the target; a target that is not empty is refused', async () => {
    const source = join(dir, 'source.sqlite')
    const issued = await issueOn(source)
    const toPostgres = await runCli(['copy', '--to', schema.url, '--json'], { LATCHKEY_DATABASE_URL: source })
    assert.equal(toPostgres.code, 0, toPostgres.stderr)
    const copied = JSON.parse(toPostgres.stdout) as { to: string; rows: Record<string, number> }
    assert.ok(copied.rows.users! >= 1 && copied.rows.access_tokens! >= 1 && copied.rows.oauth2_tokens === 1, JSON.stringify(copied.rows))
    assert.equal((await runSql<{ n: number }>(schema.url, 'select count(*)::int as n from users'))[0]!.n, copied.rows.users)
    await assertWorksOn(['--database', schema.url, '--redis', TEST_REDIS_URL!, '--redis-key-prefix', keys.prefix], issued)
    // The audit trail goes on numbering after the copied rows.
    const ids = await runSql<{ max: number; next: number }>(schema.url, "select max(id)::int as max, nextval(pg_get_serial_sequence('audit_events', 'id'))::int as next from audit_events")
    assert.ok(ids[0]!.next > ids[0]!.max, JSON.stringify(ids))

    const back = join(dir, 'back.sqlite')
    const toSqlite = await runCli(['copy', '--to', back, '--json'], { LATCHKEY_DATABASE_URL: schema.url })
    assert.equal(toSqlite.code, 0, toSqlite.stderr)
    const credentials = ['users', 'apps', 'access_tokens', 'bearer_tokens', 'oauth2_clients', 'oauth2_grants', 'oauth2_tokens']
    const rowsOf = (rows: Record<string, number>) => credentials.map((table) => [table, rows[table]])
    assert.deepEqual(rowsOf((JSON.parse(toSqlite.stdout) as typeof copied).rows), rowsOf(copied.rows), 'every credential came back')
    await assertWorksOn(['--database', back], issued)

    const again = await runCli(['copy', '--to', back], { LATCHKEY_DATABASE_URL: schema.url })
    assert.notEqual(again.code, 0)
    assert.match(again.stderr, /is not empty \(users holds \d+ rows\): copy only into an empty database/)
    assert.match((await runCli(['copy', '--to', source], { LATCHKEY_DATABASE_URL: source })).stderr, /the target is the configured database itself/)
  })
})
