import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import { openStorage } from '../../../src/storage/open-stores.ts'
import type { Storage } from '../../../src/storage/types.ts'
import { SQLITE_ONLY_SKIP } from '../../helpers/backends.ts'
import { testKeyring } from '../../helpers/keys.ts'
import { accessTokenRecord, appRecord, bearerTokenRecord, userRecord } from '../contract.ts'

/**
 * Faults the database itself makes, on a real SQLite file: a statement that fails half-way through
 * a write, a commit that fails, the file removed under a running server. Each fault is planted from
 * a second connection, as a trigger or by removing the file; the stores are the product's own.
 */

const NOW = 1_750_000_000_000

describe('SQLite faults', { skip: SQLITE_ONLY_SKIP }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-faults-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  async function withStorage(name: string, body: (storage: Storage, path: string) => Promise<void>): Promise<void> {
    const path = join(dir, `${name}.sqlite`)
    const storage = await openStorage({ keyring: testKeyring(), databaseUrl: path, settleNonceEpoch: false })
    try {
      await body(storage, path)
    } finally {
      await storage.runtime.close()
    }
  }

  /** Runs `sql` on a connection of its own to the file at `path`. */
  function plant(path: string, sql: string): void {
    const db = new Sqlite(path)
    try {
      db.exec(sql)
    } finally {
      db.close()
    }
  }

  test('a key rotation whose last statement fails changes nothing: the old keys still work and the tokens stay live', async () => {
    await withStorage('rotation', async ({ stores: s }, path) => {
      const user = userRecord()
      const app = appRecord(user.id)
      await s.users.create(user)
      await s.apps.create(app)
      const access = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
      await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
      // Revoking the bearer tokens is the rotation's last statement.
      plant(path, `create trigger fails_late before update on bearer_tokens begin select raise(abort, 'planted fault'); end`)

      await assert.rejects(s.apps.rotateKeys(app.id, { keys: { consumerKey: 'rotated-key', consumerSecret: 'rotated-secret' }, revokeTokens: true, nowMs: NOW + 1 }), /planted fault/)

      assert.equal((await s.apps.findByConsumerKey(app.consumerKey))?.consumerSecret, app.consumerSecret, 'the old keys')
      assert.equal(await s.apps.findByConsumerKey('rotated-key'), undefined)
      assert.equal((await s.accessTokens.findByToken(access.token))?.revokedAtMs, null, 'the access token: not revoked, the earlier statement rolled back')
    })
  })

  test('when the commit of units handed over together fails, each unit fails with its own error if it had one, else the commit\'s', async () => {
    await withStorage('commit', async ({ stores: s }, path) => {
      // A user's insert leaves a row that breaks a deferred foreign key: SQLite refuses the commit.
      plant(
        path,
        `create table planted_parent (id integer primary key);
         create table planted_child (parent_id integer references planted_parent (id) deferrable initially deferred);
         create trigger breaks_commit after insert on users begin insert into planted_child values (1); end`,
      )
      const user = userRecord()
      const [created, failedAlone] = await Promise.allSettled([
        s.transaction((tx) => tx.users.create(user)),
        s.transaction(async () => {
          throw new Error('this unit failed by itself')
        }),
      ])
      assert.equal(created.status, 'rejected')
      assert.match(String((created as PromiseRejectedResult).reason), /FOREIGN KEY constraint failed/)
      assert.equal(failedAlone.status, 'rejected')
      assert.equal((failedAlone as PromiseRejectedResult).reason.message, 'this unit failed by itself')
      assert.equal(await s.users.findById(user.id), undefined, 'nothing was committed')
    })
  })

  test('a checkpoint worker that fails (here: the database file removed under the server) leaves writes going and close() resolving', { timeout: 60_000 }, async () => {
    await withStorage('checkpoints', async ({ stores: s }, path) => {
      rmSync(path)
      const detail = { note: 'x'.repeat(500) }
      const write1500Rows = async () => {
        for (let batch = 0; batch < 15; batch++) {
          await s.transaction(async (tx) => {
            for (let i = 0; i < 100; i++) await tx.audit.record({ atMs: NOW, event: 'request_token.issued', appId: '1', userId: null, address: null, detail })
          })
        }
      }
      await write1500Rows()
      await write1500Rows()
      // More than 1 MB of WAL: within a check or two (250 ms each) the worker starts, and cannot open the file.
      assert.ok(statSync(`${path}-wal`).size > 1024 * 1024)
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      await write1500Rows()
      assert.equal((await s.audit.list({ limit: 10_000 })).length, 4500)
    })
  })
})
