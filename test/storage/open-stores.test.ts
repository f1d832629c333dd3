import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import { openStorage } from '../../src/storage/open-stores.ts'
import { testKeyring } from '../helpers/keys.ts'
import { expiryOf, nonceUse } from '../helpers/nonce-use.ts'

/** A local port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

// src/storage/open-stores.ts on the embedded database: what readiness reports, the nonce epoch a
// server waits for, and a Redis that cannot be reached at start.
describe('opening the stores', () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-open-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('the embedded database answers its readiness check: the database up, no Redis configured, the master key loaded; once closed, the database down', async () => {
    const { runtime } = await openStorage({ keyring: testKeyring(), databaseUrl: join(dir, 'ready.sqlite'), settleNonceEpoch: false })
    let isClosed = false
    try {
      await runtime.ping()
      assert.deepEqual(await runtime.checkDependencies(), { database: 'up', redis: 'not_configured', master_key: 'loaded' })
      await runtime.close()
      isClosed = true
      await assert.rejects(runtime.ping())
      assert.deepEqual(await runtime.checkDependencies(), { database: 'down', redis: 'not_configured', master_key: 'loaded' })
    } finally {
      if (!isClosed) await runtime.close()
    }
  })

  test('by default it resolves once its nonce epoch is a past second, so a request signed at once is not before it', async () => {
    const { stores, runtime } = await openStorage({ keyring: testKeyring(), databaseUrl: join(dir, 'epoch.sqlite') })
    try {
      const use = nonceUse('ck', 'first', { timestampSeconds: Math.floor(Date.now() / 1000) })
      assert.equal(await stores.nonces.remember(use, expiryOf(use), Date.now()), 'fresh')
    } finally {
      await runtime.close()
    }
  })

  test('an embedded database another process holds locked at start refuses the open as unavailable, not as a failed migration', async () => {
    const path = join(dir, 'locked.sqlite')
    const holder = new Database(path)
    holder.pragma('journal_mode = WAL')
    holder.exec('BEGIN EXCLUSIVE')
    try {
      await assert.rejects(openStorage({ keyring: testKeyring(), databaseUrl: path, settleNonceEpoch: false }), (error: Error) => {
        assert.equal(error.name, 'StorageUnavailableError')
        assert.match(error.message, /^cannot reach the database: .*locked/)
        return true
      })
    } finally {
      holder.exec('ROLLBACK')
      holder.close()
    }
  })

  test('a Redis that cannot be reached at start refuses the open as unavailable, naming where', async () => {
    const port = await closedPort()
    const url = `redis://:hunter2@127.0.0.1:${port}`
    await assert.rejects(openStorage({ keyring: testKeyring(), databaseUrl: join(dir, 'no-redis.sqlite'), redisUrl: url, settleNonceEpoch: false }), (error: Error) => {
      assert.equal(error.name, 'StorageUnavailableError')
      assert.match(error.message, new RegExp(`^cannot reach Redis at redis://:\\*+@127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`))
      assert.doesNotMatch(error.message, /hunter2/)
      return true
    })
  })
})
