// Copying a whole database, in process (test/cli/copy.test.ts runs `latchkey copy` and serves the copies).
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { COPIED_TABLES, copyDatabase } from '../../src/storage/copy.ts'
import { DatabaseRefusedError } from '../../src/storage/errors.ts'
import { GENERATION_TABLE } from '../../src/storage/sqlite/generation.ts'
import { createDomainDeps } from '../../src/composition/root.ts'
import { openStorage } from '../../src/storage/open-stores.ts'
import { SHARED_BACKENDS_SKIP, createTestSchema, runSql } from '../helpers/backends.ts'
import { issueEveryCredential } from '../helpers/fixtures.ts'
import { testKeyring } from '../helpers/keys.ts'
import { tableContents, tableNames } from '../helpers/stored-rows.ts'
import { testDomainSettings } from '../helpers/test-app.ts'
import { appRecord, auditEvent, requestTokenRecord, userRecord } from './contract.ts'
import { insertAuditRows, withStoresAt } from './seeded.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-copy-'))
after(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const newPath = () => join(dir, `${++files}.sqlite`)
const TABLES = COPIED_TABLES.map((t) => t.table)

/** A database with two people, three apps and `auditRows` audit rows (more than one batch). */
async function sourceWith(auditRows: number): Promise<string> {
  const path = newPath()
  await withStoresAt(path, async (stores) => {
    for (let i = 0; i < 2; i++) {
      const user = userRecord()
      await stores.users.create(user)
      await stores.apps.create(appRecord(user.id))
      if (i === 0) await stores.apps.create(appRecord(user.id))
    }
  })
  insertAuditRows(path, auditRows)
  return path
}

/**
 * A database with at least one row in every copied table, each written as the service writes it:
 * the credentials through the use cases, the rest through their stores.
 */
async function sourceWithEveryTable(): Promise<string> {
  const path = newPath()
  const storage = await openStorage({ keyring: testKeyring(), databaseUrl: path, settleNonceEpoch: false })
  try {
    const { stores } = storage
    const { app, user } = await issueEveryCredential(createDomainDeps(storage, testDomainSettings()))
    const nowMs = Date.now()
    await stores.requestTokens.create(requestTokenRecord(app.id))
    await stores.apps.rotateKeys(app.id, { keys: { consumerKey: `ck-${nowMs}`, consumerSecret: `cs-${nowMs}` }, previousValidUntilMs: nowMs + 60_000, revokeTokens: false, nowMs })
    await stores.adminTokens.create({ id: 'admin-1', name: 'ops', createdAtMs: nowMs, revokedAtMs: null }, `admin-token-${nowMs}`)
    await stores.sessions.create({ id: `session-${nowMs}`, userId: user.id, generation: 0, createdAtMs: nowMs, lastSeenAtMs: nowMs, passwordAtMs: nowMs, userAgent: 'a browser', address: '192.0.2.1', endedAtMs: null })
    const failure = { atMs: nowMs, method: 'POST', url: 'https://api.example/oauth/request_token', reason: 'bad_signature' as const, baseString: 'POST&…', parameters: 'header: oauth_consumer_key' }
    await stores.signatureFailures.record(app.id, failure, { keep: 50, maxAgeMs: 3_600_000 })
    await stores.audit.record(auditEvent({ appId: app.id, userId: user.id, detail: { fields: ['name'] } }))
    const code = { appId: app.id, userId: user.id, redirectUri: 'https://app.example/cb', codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', challengeMethod: 'S256' as const, scopes: ['users.read'], createdAtMs: nowMs, expiresAtMs: nowMs + 30_000 }
    await stores.oauth2Codes.create(`code-${nowMs}`, code)
    await stores.signInUnlocks.record('address:192.0.2.1', nowMs)
    // The revocation push: an endpoint, an outbox event (the key rotation's) handed to it, the lease.
    await stores.webhooks.add({ id: '77', url: 'https://rs.example/hook', appId: null, secret: 'whsec_copied', createdAtMs: nowMs })
    await stores.transaction((tx) => tx.revocations.append({ id: '5f0c7d0e-0000-4000-8000-000000000001', type: 'app.deleted', atMs: nowMs, appId: app.id, userId: null, credentialKind: 'app', credentialSha256: null }))
    await stores.webhooks.fanOut(10)
    await stores.webhooks.claimLease('copy-test', nowMs, 10_000)
    // Existing accounts: an upstream identity linked to the person, a sign-in in progress elsewhere.
    await stores.identityLinks.create({ provider: 'corp', subject: 'sub-1', userId: user.id, createdAtMs: nowMs })
    const secrets = { codeVerifier: 'v'.repeat(43), nonce: 'n' }
    await stores.externalSignIns.create({ id: `state-${nowMs}`, kind: 'oidc', provider: 'corp', browser: 'b', returnTo: '/console', forceLogin: false, secrets, createdAtMs: nowMs, expiresAtMs: nowMs + 600_000 })
  } finally {
    await storage.runtime.close()
  }
  const empty = Object.entries(await tableContents(path, await dataTables(path))).filter(([, rows]) => rows.length === 0)
  assert.deepEqual(empty, [], 'the source has a row in every table')
  return path
}

/** Every table the migrations made in the SQLite file at `path`, but the migrator's and the credential generation (counted anew on the target). */
async function dataTables(path: string): Promise<string[]> {
  return (await tableNames(path)).filter((name) => !name.startsWith('latchkey_migration') && name !== GENERATION_TABLE)
}

const refused = (message: RegExp) => (error: Error) => error instanceof DatabaseRefusedError && message.test(error.message)

describe('copyDatabase', () => {
  test('every row of every table, a batch at a time; each table reported as it goes, in order; the counts answered', async () => {
    const source = await sourceWith(1201)
    const target = newPath()
    const progress: Array<[string, number, number]> = []
    const copied = await copyDatabase(source, target, (table, done, total) => progress.push([table, done, total]))
    assert.deepEqual(await tableContents(target, TABLES), await tableContents(source, TABLES))
    const expected = Object.fromEntries(TABLES.map((table) => [table, 0]))
    assert.deepEqual(copied, { ...expected, users: 2, apps: 3, audit_events: 1201 })
    assert.deepEqual(
      progress.filter(([table]) => table === 'audit_events'),
      [
        ['audit_events', 0, 1201],
        ['audit_events', 500, 1201],
        ['audit_events', 1000, 1201],
        ['audit_events', 1201, 1201],
      ],
    )
    assert.deepEqual(
      progress.filter(([table]) => table === 'apps'),
      [
        ['apps', 0, 3],
        ['apps', 3, 3],
      ],
    )
    assert.deepEqual([...new Set(progress.map(([table]) => table))], TABLES, 'every table, parents first')
  })

  test('a source with a row in every table, signature failures included: every row lands, as it was', async () => {
    const source = await sourceWithEveryTable()
    const target = newPath()
    const copied = await copyDatabase(source, target)
    const tables = await dataTables(source)
    assert.deepEqual(await tableContents(target, tables), await tableContents(source, tables))
    assert.deepEqual(Object.keys(copied).sort(), tables)
    assert.ok(Object.values(copied).every((rows) => rows > 0), JSON.stringify(copied))
  })

  test('without a progress report, the same copy', async () => {
    const source = await sourceWith(3)
    const target = newPath()
    assert.equal((await copyDatabase(source, target)).audit_events, 3)
    assert.deepEqual(await tableContents(target, TABLES), await tableContents(source, TABLES))
  })

  test('a database never started on is migrated and copied as empty', async () => {
    const source = newPath()
    const copied = await copyDatabase(source, newPath())
    assert.deepEqual(copied, Object.fromEntries(TABLES.map((table) => [table, 0])))
    assert.ok(existsSync(source))
  })

  test('refuses a target that is not empty, naming a table and its rows, and writes nothing', async () => {
    const source = await sourceWith(0)
    const target = newPath()
    await withStoresAt(target, (stores) => stores.users.create(userRecord()))
    const before = await tableContents(target)
    await assert.rejects(copyDatabase(source, target), refused(/^the target .* is not empty \(users holds 1 rows\): copy only into an empty database$/))
    assert.deepEqual(await tableContents(target), before)
  })

  test('refuses the configured database as its own target', async () => {
    const source = await sourceWith(0)
    await assert.rejects(copyDatabase(source, source), refused(/^the target is the configured database itself$/))
  })

  test('SQLite to PostgreSQL: the same rows; the audit trail and the signature failures go on numbering after the copied ones', { skip: SHARED_BACKENDS_SKIP }, async () => {
    const schema = await createTestSchema()
    try {
      const source = await sourceWith(620)
      const copied = await copyDatabase(source, schema.url)
      assert.equal(copied.audit_events, 620)
      const [row] = await runSql<{ n: number; max: number; next: number }>(
        schema.url,
        "select count(*)::int as n, max(id)::int as max, nextval(pg_get_serial_sequence('audit_events', 'id'))::int as next from audit_events",
      )
      assert.equal(row!.n, 620)
      assert.equal(row!.next, row!.max + 1)
      const [failures] = await runSql<{ next: number }>(schema.url, "select nextval(pg_get_serial_sequence('signature_failures', 'id'))::int as next")
      assert.equal(failures!.next, 1, 'an empty table starts at 1')
      const back = newPath()
      assert.deepEqual(await copyDatabase(schema.url, back), copied)
      assert.deepEqual(await tableContents(back, TABLES), await tableContents(source, TABLES))
      await assert.rejects(copyDatabase(back, schema.url), refused(/is not empty \(users holds 2 rows\)/))
    } finally {
      await schema.drop()
    }
  })

  test('SQLite to PostgreSQL and back, a row in every table, signature failures included: every row comes back as it was', { skip: SHARED_BACKENDS_SKIP }, async () => {
    const schema = await createTestSchema()
    try {
      const source = await sourceWithEveryTable()
      const copied = await copyDatabase(source, schema.url)
      assert.ok(Object.values(copied).every((rows) => rows > 0), JSON.stringify(copied))
      const back = newPath()
      assert.deepEqual(await copyDatabase(schema.url, back), copied)
      const tables = await dataTables(source)
      assert.deepEqual(await tableContents(back, tables), await tableContents(source, tables))
    } finally {
      await schema.drop()
    }
  })
})
