import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
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
