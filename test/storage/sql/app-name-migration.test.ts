import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { migrateToLatest } from '../../../src/storage/sql/migrations.ts'
import { freshDatabase } from './fresh-database.ts'

/**
 * Migration 008 on a database that already holds duplicate app names (possible before it): the
 * oldest app of a name keeps it, each later one is renamed `<name> (<app id>)` with an audit row,
 * and from then on the unique index refuses a duplicate. On this pass's database.
 */
const app = (id: string, ownerId: string, name: string, createdAtMs: number) => ({
  id,
  name,
  description: '',
  website: '',
  owner_id: ownerId,
  consumer_key: `ck-${id}`,
  consumer_key_hash: `ckh-${id}`,
  consumer_secret: `cs-${id}`,
  callback_urls: '[]',
  access_level: 'read',
  app_type: 'web',
  sign_in_enabled: 0,
  signature_methods: 'HMAC-SHA1',
  is_suspended: 0,
  is_resource_server: 0,
  created_at_ms: createdAtMs,
  updated_at_ms: createdAtMs,
})

test('008-app-name-unique renames existing duplicates, oldest first, with an audit row each; then the index refuses one', async () => {
  const { db, remove } = await freshDatabase()
  try {
    await migrateToLatest(db)
    // The database as it was before 008.
    await sql`drop index apps_owner_name_key`.execute(db)
    await sql`alter table apps drop column name_key`.execute(db)
    await db.deleteFrom('latchkey_migrations').where('name', '=', '008-app-name-unique').execute()
    for (const id of ['1', '2']) {
      await db.insertInto('users').values({ id, screen_name: `owner${id}`, screen_name_lower: `owner${id}`, name: 'Owner', password_hash: 'h', created_at_ms: 1 }).execute()
    }
    const longName = 'L'.repeat(64)
    await db
      .insertInto('apps')
      .values([
        app('103', '1', 'WEATHER', 3),
        app('101', '1', 'Weather', 1),
        app('102', '1', 'weather', 2),
        app('104', '1', 'Other', 4),
        app('105', '2', 'Weather', 5),
        app('106', '1', longName, 6),
        app('107', '1', longName.toLowerCase(), 7),
        // Not ASCII: SQLite's lower() leaves É as it is, JavaScript's (and the app store's) does not.
        app('109', '2', 'ÉCOLE', 9),
        // The name a renamed app would be given first is another app's own: it is never taken from it.
        app('110', '1', 'weather (102)', 10),
        // Two names in lower case, one in upper case (STRASSE): the migration compares as the store does.
        app('112', '2', 'Strasse', 12),
        app('113', '2', 'Straße', 13),
      ])
      .execute()

    assert.deepEqual(await migrateToLatest(db), ['008-app-name-unique'])

    const names = Object.fromEntries((await db.selectFrom('apps').select(['id', 'name']).execute()).map((r: { id: string; name: string }) => [r.id, r.name]))
    assert.deepEqual(names, {
      '101': 'Weather',
      '102': 'weather (102-1)',
      '103': 'WEATHER (103)',
      '104': 'Other',
      '105': 'Weather',
      '106': longName,
      '107': `${'l'.repeat(58)} (107)`,
      '109': 'ÉCOLE',
      '110': 'weather (102)',
      '112': 'Strasse',
      '113': 'Straße',
    })
    const audit = await db.selectFrom('audit_events').selectAll().where('event', '=', 'app.updated').orderBy('app_id').execute()
    assert.deepEqual(
      audit.map((row) => [row.app_id, row.user_id, JSON.parse(String(row.detail))]),
      [
        ['102', '1', { fields: ['name'], via: 'migration 008-app-name-unique', previous_name: 'weather', name: 'weather (102-1)' }],
        ['103', '1', { fields: ['name'], via: 'migration 008-app-name-unique', previous_name: 'WEATHER', name: 'WEATHER (103)' }],
        ['107', '1', { fields: ['name'], via: 'migration 008-app-name-unique', previous_name: longName.toLowerCase(), name: `${'l'.repeat(58)} (107)` }],
      ],
    )
    await assert.rejects(db.insertInto('apps').values({ ...app('108', '1', 'OTHER', 8), name_key: 'other' }).execute(), /unique|UNIQUE/)
    const keyOf109 = await db.selectFrom('apps').select('name_key').where('id', '=', '109').executeTakeFirstOrThrow()
    assert.equal(keyOf109.name_key, 'école', 'folded as the app store folds a name')
    await assert.rejects(db.insertInto('apps').values({ ...app('111', '2', 'école', 11), name_key: 'école' }).execute(), /unique|UNIQUE/)
  } finally {
    await remove()
  }
})

test('a migration merged after later ones already ran is still applied (migrations come from parallel branches)', async () => {
  const { db, remove } = await freshDatabase()
  try {
    await migrateToLatest(db)
    // As if 007 had come from a branch merged after 008 ran here.
    await sql`drop table signature_failures`.execute(db)
    await db.deleteFrom('latchkey_migrations').where('name', '=', '007-signature-failures').execute()
    assert.deepEqual(await migrateToLatest(db), ['007-signature-failures'])
    assert.deepEqual(await db.selectFrom('signature_failures').selectAll().execute(), [])
  } finally {
    await remove()
  }
})

test('009-signature-failures-masked deletes the failures kept before their values were masked, and only those', async () => {
  const { db, remove } = await freshDatabase()
  try {
    await migrateToLatest(db)
    await db.insertInto('users').values({ id: '1', screen_name: 'owner', screen_name_lower: 'owner', name: 'Owner', password_hash: 'h', created_at_ms: 1 }).execute()
    await db.insertInto('apps').values({ ...app('101', '1', 'kept', 1), name_key: 'kept' }).execute()
    const unmasked = { app_id: '101', at_ms: 5, method: 'GET', url: 'https://h/p?oauth_signature=cs%26ts', reason: 'timestamp_out_of_bounds', base_string: null }
    await db.insertInto('signature_failures').values(unmasked).execute()
    await db.deleteFrom('latchkey_migrations').where('name', '=', '009-signature-failures-masked').execute()
    assert.deepEqual(await migrateToLatest(db), ['009-signature-failures-masked'])
    assert.deepEqual(await db.selectFrom('signature_failures').selectAll().execute(), [])
    assert.equal((await db.selectFrom('apps').select('id').execute()).length, 1, 'the app stays')
  } finally {
    await remove()
  }
})

test("010-suspended-by counts the apps suspended before it as the operator's, and only those", async () => {
  const { db, remove } = await freshDatabase()
  try {
    await migrateToLatest(db)
    await sql`alter table apps drop column suspended_by`.execute(db)
    await db.deleteFrom('latchkey_migrations').where('name', '=', '010-suspended-by').execute()
    await db.insertInto('users').values({ id: '1', screen_name: 'owner', screen_name_lower: 'owner', name: 'Owner', password_hash: 'h', created_at_ms: 1 }).execute()
    await db.insertInto('apps').values([{ ...app('101', '1', 'held', 1), name_key: 'held', is_suspended: 1 }, { ...app('102', '1', 'free', 2), name_key: 'free' }]).execute()
    assert.deepEqual(await migrateToLatest(db), ['010-suspended-by'])
    const rows = await db.selectFrom('apps').select(['id', 'suspended_by']).orderBy('id').execute()
    assert.deepEqual(rows, [
      { id: '101', suspended_by: 'operator' },
      { id: '102', suspended_by: null },
    ])
  } finally {
    await remove()
  }
})
