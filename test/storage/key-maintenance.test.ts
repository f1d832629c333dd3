// Master-key maintenance in process (test/e2e/key-rotation.test.ts rotates under load through the CLI).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { withKeyMaintenance } from '../../src/storage/key-maintenance.ts'
import { KeyringError, newKeyring, readKeyringFile, writeKeyringFile, type Keyring, type KeyringSource } from '../../src/storage/sealing/keyring.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { appRecord, userRecord } from './contract.ts'
import { withStoresAt } from './seeded.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-keys-'))
after(() => rmSync(dir, { recursive: true, force: true }))
let n = 0

/** A key file and a database holding one person and `apps` apps, each with two sealed values. */
async function setUp(apps: number): Promise<{ keyFile: string; database: string; first: Keyring; made: AppRecord[] }> {
  const keyFile = join(dir, `${++n}.keys`)
  const database = join(dir, `${n}.sqlite`)
  const first = newKeyring()
  writeKeyringFile(keyFile, first)
  const made = await createApps(database, { kind: 'file', path: keyFile }, apps)
  return { keyFile, database, first, made }
}

/** `count` apps of a new person, sealed with `keyring`. */
function createApps(database: string, keyring: KeyringSource, count: number): Promise<AppRecord[]> {
  return withStoresAt(
    database,
    async (stores) => {
      const user = userRecord()
      await stores.users.create(user)
      const made = []
      for (let i = 0; i < count; i++) {
        const app = appRecord(user.id)
        await stores.apps.create(app)
        made.push(app)
      }
      return made
    },
    keyring,
  )
}

/** Each app as the stores read it with the key file as it is now. */
function readBack(database: string, keyFile: string, apps: AppRecord[]): Promise<Array<AppRecord | undefined>> {
  return withStoresAt(database, (stores) => Promise.all(apps.map((app) => stores.apps.findByConsumerKey(app.consumerKey))), { kind: 'file', path: keyFile })
}

/** The key file's time set back, as if every instance had long read it. */
const ageKeyFile = (keyFile: string) => utimesSync(keyFile, new Date(Date.now() - 10_000), new Date(Date.now() - 10_000))

const keyringRefusal = (message: RegExp) => (error: Error) => error instanceof KeyringError && message.test(error.message)

describe('master-key maintenance', () => {
  test('status counts the values sealed under each key', async () => {
    const { keyFile, database, first } = await setUp(2)
    const status = await withKeyMaintenance(database, keyFile, (m) => m.status())
    assert.deepEqual(status, { activeKeyId: first.activeKeyId, keys: [{ id: first.activeKeyId, values: 4 }] })
  })

  test('rotate writes a new active key and re-seals every value under it; every value still opens', async () => {
    const { keyFile, database, first, made } = await setUp(3)
    const { newKeyId, resealed, status } = await withKeyMaintenance(database, keyFile, async (m) => ({ ...(await m.rotate()), status: await m.status() }))
    assert.notEqual(newKeyId, first.activeKeyId)
    assert.equal(resealed, 6)
    const written = readKeyringFile(keyFile)
    assert.equal(written.activeKeyId, newKeyId)
    assert.deepEqual([...written.keys.keys()].sort(), [first.activeKeyId, newKeyId].sort(), 'the old key stays to open what it sealed')
    assert.deepEqual(written.keys.get(first.activeKeyId), first.keys.get(first.activeKeyId))
    assert.deepEqual(status.keys.find((k) => k.id === newKeyId), { id: newKeyId, values: 6 })
    assert.deepEqual(status.keys.find((k) => k.id === first.activeKeyId), { id: first.activeKeyId, values: 0 })
    assert.deepEqual(await readBack(database, keyFile, made), made)
  })

  test('reseal moves what an instance still sealed under the old key; retire then removes the old key once the file has settled', async () => {
    const { keyFile, database, first, made } = await setUp(1)
    await withKeyMaintenance(database, keyFile, (m) => m.rotate())
    // An instance that has not read the new key file yet seals under the old key.
    const late = await createApps(database, { kind: 'inline', keyring: first }, 2)
    const active = readKeyringFile(keyFile).activeKeyId
    await withKeyMaintenance(database, keyFile, async (m) => {
      assert.deepEqual((await m.status()).keys.find((k) => k.id === first.activeKeyId), { id: first.activeKeyId, values: 4 })
      assert.equal(await m.reseal(), 4)
      assert.deepEqual((await m.status()).keys.find((k) => k.id === first.activeKeyId), { id: first.activeKeyId, values: 0 })
      await assert.rejects(m.retire(active), keyringRefusal(new RegExp(`^key ${active} is the active key; rotate first$`)))
      await assert.rejects(m.retire(first.activeKeyId), keyringRefusal(/^the key file changed [0-3] s ago; wait until every instance has read it \(3 s\)$/))
      assert.equal(readKeyringFile(keyFile).keys.size, 2, 'nothing removed yet')
      ageKeyFile(keyFile)
      await m.retire(first.activeKeyId)
      assert.deepEqual(await m.status(), { activeKeyId: active, keys: [{ id: active, values: 6 }] })
    })
    assert.deepEqual([...readKeyringFile(keyFile).keys.keys()], [active])
    assert.deepEqual(await readBack(database, keyFile, [...made, ...late]), [...made, ...late])
  })

  test('retire re-seals first what was sealed under the old key since the last reseal', async () => {
    const { keyFile, database, first } = await setUp(1)
    await withKeyMaintenance(database, keyFile, (m) => m.rotate())
    const late = await createApps(database, { kind: 'inline', keyring: first }, 1)
    ageKeyFile(keyFile)
    await withKeyMaintenance(database, keyFile, (m) => m.retire(first.activeKeyId))
    assert.ok(!readKeyringFile(keyFile).keys.has(first.activeKeyId))
    assert.deepEqual(await readBack(database, keyFile, late), late)
  })

  test('retiring a key the file does not hold says so', async () => {
    const { keyFile, database, first } = await setUp(1)
    await withKeyMaintenance(database, keyFile, (m) => m.rotate())
    ageKeyFile(keyFile)
    await withKeyMaintenance(database, keyFile, (m) => m.retire(first.activeKeyId))
    ageKeyFile(keyFile)
    await assert.rejects(
      withKeyMaintenance(database, keyFile, (m) => m.retire(first.activeKeyId)),
      keyringRefusal(new RegExp(`^there is no key ${first.activeKeyId}$`)),
    )
  })
})
