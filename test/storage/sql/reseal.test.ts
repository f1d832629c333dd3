import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import { SQLITE_ONLY_SKIP } from '../../helpers/backends.ts'
import { accessTokenRecord, appRecord, userRecord } from '../contract.ts'
import { withStoresAt } from '../seeded.ts'

// src/storage/sql/reseal.ts at start: values written in the clear (before sealing existed, or by
// hand) are sealed when the stores open, and their hash columns filled, so they are found again.

const dir = mkdtempSync(join(tmpdir(), 'latchkey-reseal-'))
after(() => rmSync(dir, { recursive: true, force: true }))

test('values found in the clear are sealed when the stores open, their hashes filled: the credentials work as before', { skip: SQLITE_ONLY_SKIP }, async () => {
  const path = join(dir, 'clear.sqlite')
  const user = userRecord()
  const app = appRecord(user.id, { consumerKey: 'ck-in-the-clear', consumerSecret: 'cs-in-the-clear' })
  const access = accessTokenRecord(app.id, user.id, { token: 'at-in-the-clear', secret: 'as-in-the-clear' })
  await withStoresAt(path, async (stores) => {
    await stores.users.create(user)
    await stores.apps.create(app)
    await stores.accessTokens.issueOrReuse(access)
  })
  const raw = new Sqlite(path)
  try {
    raw.prepare('update apps set consumer_key = ?, consumer_key_hash = null, consumer_secret = ? where id = ?').run(app.consumerKey, app.consumerSecret, app.id)
    raw.prepare('update access_tokens set token = ?, token_hash = null, secret = ? where app_id = ?').run(access.token, access.secret, app.id)
  } finally {
    raw.close()
  }

  await withStoresAt(path, async (stores) => {
    assert.deepEqual(await stores.apps.findByConsumerKey(app.consumerKey), app)
    assert.deepEqual(await stores.accessTokens.findByToken(access.token), access)
  })
  const stored = new Sqlite(path, { readonly: true })
  try {
    const appRow = stored.prepare('select consumer_key, consumer_key_hash, consumer_secret from apps').get() as Record<string, string | null>
    const tokenRow = stored.prepare('select token, token_hash, secret from access_tokens').get() as Record<string, string | null>
    for (const [name, value] of Object.entries({ ...appRow, ...tokenRow })) {
      assert.ok(value, `${name} is set`)
      assert.doesNotMatch(value, /in-the-clear/, `${name} holds no clear value`)
    }
    assert.match(appRow.consumer_key!, /^v1\./)
  } finally {
    stored.close()
  }
})
