import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { sql } from 'kysely'
import { migrateToLatest } from '../../../src/storage/sql/migrations.ts'
import { openStorage } from '../../../src/storage/open-stores.ts'
import { openSqlite } from '../../../src/storage/sqlite/open.ts'
import { testKeyring } from '../../helpers/keys.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-migrate-'))
after(() => rmSync(dir, { recursive: true, force: true }))

test('migrateToLatest applies every migration once; the second run is a no-op', async () => {
  const db = openSqlite(join(dir, 'twice.sqlite'))
  try {
    const first = await migrateToLatest(db)
    assert.ok(first.length > 0)
    assert.deepEqual(await migrateToLatest(db), [])
  } finally {
    await db.destroy()
  }
})

test('reopening a migrated database keeps its data', async () => {
  const path = join(dir, 'reopen.sqlite')
  const { stores: first, runtime: firstRuntime } = await openStorage({ keyring: testKeyring(), databaseUrl: path })
  const user = { id: '42', screenName: 'kept', name: 'Kept', passwordHash: 'h', createdAtMs: 1 }
  await first.users.create(user)
  await firstRuntime.close()
  const { stores: second, runtime: secondRuntime } = await openStorage({ keyring: testKeyring(), databaseUrl: `sqlite:${path}` })
  try {
    assert.deepEqual(await second.users.findById('42'), user)
  } finally {
    await secondRuntime.close()
  }
})

test('a migration that fails is named with the reason, and the ones before it stay applied', async () => {
  const db = openSqlite(join(dir, 'failing.sqlite'))
  try {
    // A table of migration 003's name already there, as an operator's hand might leave one.
    await sql`create table audit_events (x integer)`.execute(db)
    await assert.rejects(migrateToLatest(db), (error: Error) => {
      assert.match(error.message, /^migration 003-audit-events failed: table "audit_events" already exists$/)
      assert.ok(error.cause)
      return true
    })
    const applied = await sql<{ name: string }>`select name from latchkey_migrations order by name`.execute(db)
    assert.deepEqual(applied.rows.map((r) => r.name), ['001-registry-and-tokens', '002-sealed-secrets'])
  } finally {
    await db.destroy()
  }
})
