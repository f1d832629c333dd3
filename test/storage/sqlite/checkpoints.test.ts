import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { sql } from 'kysely'
import { openStorage } from '../../../src/storage/open-stores.ts'
import { openSqlite, sqlitePath } from '../../../src/storage/sqlite/open.ts'
import { SQLITE_ONLY_SKIP } from '../../helpers/backends.ts'
import { testKeyring } from '../../helpers/keys.ts'

// src/storage/sqlite/open.ts and checkpoints.ts: the settings of the embedded database, and WAL
// checkpoints done by a worker thread rather than inside a request.

describe('the SQLite database', { skip: SQLITE_ONLY_SKIP }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-sqlite-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('is opened in WAL mode with synchronous=NORMAL, a raised auto-checkpoint, a larger cache and memory-mapped reads', async () => {
    const db = openSqlite(join(dir, 'settings.sqlite'))
    try {
      const pragma = async (name: string) => Object.values((await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(db)).rows[0] ?? {})[0]
      assert.equal(await pragma('journal_mode'), 'wal')
      assert.equal(await pragma('synchronous'), 1, 'NORMAL')
      assert.equal(await pragma('wal_autocheckpoint'), 10_000)
      assert.equal(await pragma('cache_size'), -65_536)
      assert.equal(await pragma('mmap_size'), 1024 * 1024 * 1024)
      assert.equal(await pragma('foreign_keys'), 1)
      assert.equal(await pragma('busy_timeout'), 5000, 'a writer waits up to 5 s for another before the request is refused')
      assert.equal(await pragma('journal_size_limit'), 64 * 1024 * 1024)
    } finally {
      await db.destroy()
    }
  })

  test('an in-memory database (sqlite::memory:) opens, keeps what is written while it is open, and closes without checkpoints to stop', async () => {
    const db = openSqlite('sqlite::memory:')
    await sql`create table t (x integer)`.execute(db)
    await sql`insert into t values (7)`.execute(db)
    assert.deepEqual((await sql<{ x: number }>`select x from t`.execute(db)).rows, [{ x: 7 }])
    assert.equal(Object.values((await sql.raw<Record<string, unknown>>('pragma journal_mode').execute(db)).rows[0] ?? {})[0], 'memory')
    await db.destroy()
  })

  test('is found at a plain path, a sqlite: URL relative or absolute, its folders made as needed', async () => {
    assert.equal(sqlitePath('data/latchkey.sqlite'), 'data/latchkey.sqlite')
    assert.equal(sqlitePath('sqlite:data/latchkey.sqlite'), 'data/latchkey.sqlite')
    assert.equal(sqlitePath('sqlite:///var/lib/latchkey.sqlite'), '/var/lib/latchkey.sqlite')
    assert.equal(sqlitePath('sqlite::memory:'), ':memory:')
    const nested = join(dir, 'a', 'b', 'nested.sqlite')
    const db = openSqlite(`sqlite://${nested}`)
    try {
      await sql`create table t (x integer)`.execute(db)
      assert.ok(existsSync(nested), 'the file is where the URL says, its folders created')
    } finally {
      await db.destroy()
    }
  })

  test('a WAL of more than 1 MB is checkpointed into the database file in the background, well before the auto-checkpoint', async () => {
    const folder = mkdtempSync(join(dir, 'wal-'))
    const path = join(folder, 'checkpoints.sqlite')
    const { stores, runtime } = await openStorage({ keyring: testKeyring(), databaseUrl: path })
    try {
      const detail = { note: 'x'.repeat(500) }
      const write3000Rows = async () => {
        for (let batch = 0; batch < 30; batch++) {
          await stores.transaction(async (tx) => {
            for (let i = 0; i < 100; i++) await tx.audit.record({ atMs: Date.now(), event: 'request_token.issued', appId: '1', userId: null, address: null, detail })
          })
        }
      }
      // The rows reach the database file itself only through a checkpoint.
      const fileReaches = async (bytes: number) => {
        const deadline = Date.now() + 10_000
        while (statSync(path).size < bytes && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
        assert.ok(statSync(path).size >= bytes, `the database file holds ${statSync(path).size} bytes, not yet ${bytes}`)
      }
      await write3000Rows()
      const walBytes = statSync(`${path}-wal`).size
      assert.ok(walBytes > 1024 * 1024 && walBytes < 10_000 * 4096, `the WAL holds ${walBytes} bytes: more than 1 MB, fewer than the auto-checkpoint's pages`)
      await fileReaches(1024 * 1024)
      // Not only once: the next megabytes written are checkpointed too.
      const afterFirst = statSync(path).size
      await write3000Rows()
      await fileReaches(afterFirst + 1024 * 1024)
      assert.equal((await stores.audit.list({ limit: 10_000 })).length, 6000)
    } finally {
      await runtime.close()
    }
    // Once close() has resolved the worker has let go of the file too: the folder can be removed
    // at once, and nothing writes into it again (the teardown race of issue 17: ENOTEMPTY).
    rmSync(folder, { recursive: true })
    await new Promise((resolve) => setTimeout(resolve, 600))
    assert.equal(existsSync(folder), false, existsSync(folder) ? readdirSync(folder).join(', ') : '')
  })
})
