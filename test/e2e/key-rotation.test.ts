import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { createDomainDeps } from '../../src/composition/root.ts'
import { openStorage } from '../../src/storage/open-stores.ts'
import { newKeyring, writeKeyringFile } from '../../src/storage/sealing/keyring.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { runCli } from '../helpers/cli.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { send, signedFetch } from '../helpers/oauth1-client.ts'
import { startServe, type ServeProcess } from '../helpers/serve-process.ts'
import { openTestDomain, testDomainSettings, type TestDomain } from '../helpers/test-app.ts'

/**
 * `latchkey keys rotate` while the service answers a continuous signed load: not one answer may be
 * other than 2xx, and the old key can then be retired with the service still answering.
 */
describe('master-key rotation under load', () => {
  let storage: TestDomain
  let keyDir: string
  let keyFile: string
  let server: ServeProcess
  let app: AppRecord
  let owner: { key: string; secret: string }

  const env = () => ({
    LATCHKEY_DATABASE_URL: storage.dbPath,
    LATCHKEY_MASTER_KEY: '',
    LATCHKEY_MASTER_KEY_FILE: keyFile,
    ...(storage.redis ? { LATCHKEY_REDIS_URL: storage.redis.url, LATCHKEY_REDIS_KEY_PREFIX: storage.redis.keyPrefix } : {}),
  })

  before(async () => {
    storage = await openTestDomain()
    await storage.domain.runtime.close()
    keyDir = mkdtempSync(join(tmpdir(), 'latchkey-keys-'))
    keyFile = join(keyDir, 'master-key.json')
    writeKeyringFile(keyFile, newKeyring())
    // The fixtures, sealed under the key file's key as the server will read them.
    const { stores, runtime } = await openStorage({ databaseUrl: storage.dbPath, keyring: { kind: 'file', path: keyFile }, redisUrl: storage.redis?.url, redisKeyPrefix: storage.redis?.keyPrefix })
    const domain = createDomainDeps({ stores, runtime }, testDomainSettings())
    app = await makeApp(domain)
    const { token } = await issueOwnerToken(domain, app.id)
    owner = { key: token.token, secret: token.secret }
    await runtime.close()
    server = await startServe(['--dev', '--port', '0', '--rate-limit-multiplier', '1000', '--log-level', 'warn', ...(storage.redis ? ['--single-instance'] : [])], env())
  })
  after(async () => {
    await server?.stop()
    await storage.close().catch(() => undefined)
    rmSync(keyDir, { recursive: true, force: true })
  })

  /** Signed calls of three kinds in a loop on 4 connections until `stop()`; every status kept. */
  async function load(stop: () => boolean): Promise<number[]> {
    const statuses: number[] = []
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const calls = [
      () => signedFetch({ consumer, token: owner, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` }),
      () => signedFetch({ consumer, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } }),
      () =>
        send({
          method: 'POST',
          url: `${server.url}/oauth2/token`,
          headers: { authorization: `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        }),
    ]
    await Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (let i = lane; !stop(); i++) statuses.push((await calls[i % calls.length]!()).status)
      }),
    )
    return statuses
  }

  test('rotate, then retire the old key: every answer along the way is 2xx', async () => {
    const oldKeyId = JSON.parse(readFileSync(keyFile, 'utf8')).activeKeyId as string
    let stopped = false
    const during = load(() => stopped)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const rotated = await runCli(['keys', 'rotate', '--json'], env())
    assert.equal(rotated.code, 0, rotated.stderr)
    const { active_key_id: newKeyId, resealed } = JSON.parse(rotated.stdout) as { active_key_id: string; resealed: number }
    assert.notEqual(newKeyId, oldKeyId)
    assert.ok(resealed >= 4, `re-sealed the app's keys and the owner's token (${resealed})`)
    // Refused while instances may not have read the new key yet: the key file "just" changed.
    const future = new Date(Date.now() + 60_000)
    utimesSync(keyFile, future, future)
    const tooSoon = await runCli(['keys', 'retire', oldKeyId], env())
    assert.equal(tooSoon.code, 1, 'retiring right after a change of the key file is refused')
    assert.match(tooSoon.stderr, /wait until every instance has read it/)
    const past = new Date(Date.now() - 60_000)
    utimesSync(keyFile, past, past)
    const retired = await runCli(['keys', 'retire', oldKeyId], env())
    assert.equal(retired.code, 0, retired.stderr)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    stopped = true
    const statuses = await during
    const bad = statuses.filter((status) => status < 200 || status >= 300)
    assert.ok(statuses.length > 30, `the load ran (${statuses.length} answers)`)
    assert.deepEqual(bad, [], 'answers other than 2xx during rotation')

    const status = await runCli(['keys', 'status', '--json'], env())
    const keys = JSON.parse(status.stdout) as { activeKeyId: string; keys: Array<{ id: string; values: number }> }
    assert.deepEqual(keys.keys.map((k) => k.id), [newKeyId], 'only the new key is left')
    assert.ok(keys.keys[0]!.values > 0)
  })
})
