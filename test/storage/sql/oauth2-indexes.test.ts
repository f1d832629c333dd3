import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { CompiledQuery } from 'kysely'
import { migrateToLatest } from '../../../src/storage/sql/migrations.ts'
import { endLiveAccessTokens } from '../../../src/storage/sql/oauth2-stores.ts'
import { openSqlite } from '../../../src/storage/sqlite/open.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-oauth2-indexes-'))
after(() => rmSync(dir, { recursive: true, force: true }))

// A refresh rotation ends the grant's live access tokens. A grant used for months has a long chain
// of spent ones behind it: the statement must reach the live ones through the partial index, never
// every token the grant ever had.
test('a refresh rotation finds the grant\'s live access tokens through the live-token index', async () => {
  const db = openSqlite(join(dir, 'oauth2.sqlite'))
  try {
    await migrateToLatest(db)
    const { sql: text, parameters } = endLiveAccessTokens(db, 'grant-1', 1).compile()
    const plan = (await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${text}`, [...parameters]))).rows.map((row) => row.detail)
    assert.deepEqual(plan, ['SEARCH oauth2_tokens USING INDEX oauth2_tokens_live_by_grant (grant_id=? AND kind=?)'])
  } finally {
    await db.destroy()
  }
})
