// The master keyring: its file format, its checks, a key file followed as it changes, and derived secrets.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import {
  KeyringError,
  deriveSecret,
  newKeyId,
  newKeyring,
  parseKeyring,
  readKeyringFile,
  resolveKeyringSource,
  serializeKeyring,
  watchKeyring,
  withNewActiveKey,
  withoutKey,
  writeKeyringFile,
} from '../../../src/storage/sealing/keyring.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-keyring-'))
after(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const newFile = () => join(dir, `${++n}`, 'master-key.json')
const key32 = (byte: number) => Buffer.alloc(32, byte).toString('base64')
const refused = (message: RegExp) => (error: Error) => error instanceof KeyringError && message.test(error.message)

describe('the master keyring', () => {
  test('written and read back whole: version 1, every key, the active one, the index key', () => {
    const keyring = withNewActiveKey(newKeyring())
    const text = serializeKeyring(keyring)
    const json = JSON.parse(text) as { version: number; activeKeyId: string; keys: Record<string, string>; indexKey: string }
    assert.equal(json.version, 1)
    assert.equal(json.activeKeyId, keyring.activeKeyId)
    assert.deepEqual(Object.keys(json.keys).sort(), [...keyring.keys.keys()].sort())
    assert.ok(text.endsWith('}\n') && text.includes('\n  "version"'), 'indented JSON, one newline at the end')
    assert.deepEqual(parseKeyring(text), keyring)
  })

  test('key ids: k, the date, six hex digits; each new', () => {
    const id = newKeyId()
    assert.match(id, new RegExp(`^k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}[0-9a-f]{6}$`))
    assert.notEqual(newKeyId(), id)
    const ring = newKeyring()
    assert.equal(ring.keys.size, 1)
    assert.equal(ring.keys.get(ring.activeKeyId)?.length, 32)
    assert.equal(ring.indexKey.length, 32)
    assert.notDeepEqual(ring.indexKey, ring.keys.get(ring.activeKeyId))
  })

  test('each mistake of a keyring is refused, naming it', () => {
    const valid = { version: 1, activeKeyId: 'a', keys: { a: key32(1) }, indexKey: key32(2) }
    const parse = (json: unknown) => () => parseKeyring(typeof json === 'string' ? json : JSON.stringify(json))
    assert.doesNotThrow(parse(valid))
    assert.throws(parse('{not json'), refused(/^the master key is not valid JSON$/))
    assert.throws(parse({ ...valid, keys: {} }), refused(/^the master key has no keys$/))
    assert.throws(parse({ ...valid, keys: undefined }), refused(/^the master key has no keys$/))
    assert.throws(parse({ ...valid, keys: { 'a b': key32(1) }, activeKeyId: 'a b' }), refused(/^key id "a b" must be 1-32 letters, digits, - or _$/))
    assert.throws(parse({ ...valid, keys: { ['x'.repeat(33)]: key32(1) } }), refused(/must be 1-32 letters/))
    assert.throws(parse({ ...valid, keys: { '': key32(1) } }), refused(/^key id "" must be/))
    assert.doesNotThrow(parse({ ...valid, keys: { ['A-z_9'.repeat(6) + 'ab']: key32(1) }, activeKeyId: 'A-z_9'.repeat(6) + 'ab' }), '32 characters of each kind')
    assert.throws(parse({ ...valid, keys: { a: Buffer.alloc(31).toString('base64') } }), refused(/^key a must be 32 bytes, base64-encoded$/))
    assert.throws(parse({ ...valid, keys: { a: 42 } }), refused(/^key a must be 32 bytes/))
    assert.throws(parse({ ...valid, activeKeyId: 'b' }), refused(/^activeKeyId must name one of the keys$/))
    assert.throws(parse({ ...valid, activeKeyId: undefined }), refused(/^activeKeyId must name one of the keys$/))
    assert.throws(parse({ ...valid, indexKey: key32(3).slice(0, 20) }), refused(/^indexKey must be 32 bytes, base64-encoded$/))
    assert.throws(parse({ ...valid, indexKey: undefined }), refused(/^indexKey must be 32 bytes/))
  })

  test('a new active key keeps the old ones; a key leaves only when it is not the active one and is there', () => {
    const first = newKeyring()
    const second = withNewActiveKey(first)
    assert.notEqual(second.activeKeyId, first.activeKeyId)
    assert.deepEqual(second.keys.get(first.activeKeyId), first.keys.get(first.activeKeyId))
    assert.deepEqual(second.indexKey, first.indexKey, 'the index key is never rotated')
    assert.throws(() => withoutKey(second, second.activeKeyId), refused(new RegExp(`^key ${second.activeKeyId} is the active key; rotate first$`)))
    assert.throws(() => withoutKey(second, 'nope'), refused(/^there is no key nope$/))
    const third = withoutKey(second, first.activeKeyId)
    assert.deepEqual([...third.keys.keys()], [second.activeKeyId])
    assert.equal(second.keys.size, 2, 'the keyring given is left as it was')
  })

  test('the key file: made with its folder, readable by its owner only, replaced whole; a missing one refused by name', () => {
    const file = newFile()
    const keyring = newKeyring()
    writeKeyringFile(file, keyring)
    assert.equal(statSync(file).mode & 0o777, 0o600)
    assert.equal(statSync(join(file, '..')).mode & 0o777, 0o700)
    assert.deepEqual(readKeyringFile(file), keyring)
    const next = withNewActiveKey(keyring)
    writeKeyringFile(file, next)
    assert.deepEqual(readKeyringFile(file), next)
    assert.deepEqual(readdirNames(join(file, '..')), ['master-key.json'], 'no temporary file left')
    assert.throws(() => readKeyringFile(join(dir, 'absent.json')), refused(/^cannot read the master key file .*absent\.json: ENOENT$/))
  })

  test('a watched key file is read again when it changes, at most once a second unless forced; a file briefly gone keeps the keys', async () => {
    const file = newFile()
    const first = newKeyring()
    writeKeyringFile(file, first)
    const current = watchKeyring({ kind: 'file', path: file })
    assert.deepEqual(current(), first)
    const second = withNewActiveKey(first)
    writeKeyringFile(file, second)
    utimesSync(file, new Date(), new Date(Date.now() + 5000))
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(current().activeKeyId, first.activeKeyId, 'within a second of the last look, the keys held')
    assert.equal(current(true).activeKeyId, second.activeKeyId, 'forced: read at once')

    const third = withNewActiveKey(second)
    writeKeyringFile(file, third)
    utimesSync(file, new Date(), new Date(Date.now() + 10_000))
    await new Promise((resolve) => setTimeout(resolve, 1050))
    assert.equal(current().activeKeyId, third.activeKeyId, 'a second later, the change is seen')

    rmSync(file)
    await new Promise((resolve) => setTimeout(resolve, 1050))
    assert.equal(current().activeKeyId, third.activeKeyId)
    assert.equal(current(true).activeKeyId, third.activeKeyId)
  })

  test('an unchanged key file is not parsed again', async () => {
    const file = newFile()
    const keyring = newKeyring()
    writeKeyringFile(file, keyring)
    const mtime = new Date(Date.now() - 60_000)
    utimesSync(file, mtime, mtime)
    const current = watchKeyring({ kind: 'file', path: file })
    const before = current()
    // Same time, different content: only a change of time makes it read the file again.
    writeFileSync(file, serializeKeyring(withNewActiveKey(keyring)))
    utimesSync(file, mtime, mtime)
    await new Promise((resolve) => setTimeout(resolve, 1050))
    assert.equal(current(), before)
  })

  test('an inline keyring is the keyring, always', () => {
    const keyring = newKeyring()
    const current = watchKeyring({ kind: 'inline', keyring })
    assert.equal(current(), keyring)
    assert.equal(current(true), keyring)
  })

  test('where the keys come from: inline wins; a missing file is made only when asked, else refused with the fix', () => {
    const inline = serializeKeyring(newKeyring())
    const file = newFile()
    assert.deepEqual(resolveKeyringSource({ inline, file, createIfMissing: true }), { source: { kind: 'inline', keyring: parseKeyring(inline) }, created: false })
    assert.ok(!existsSync(file), 'an inline key makes no file')
    assert.throws(
      () => resolveKeyringSource({ inline: undefined, file, createIfMissing: false }),
      refused(/^no master key: set LATCHKEY_MASTER_KEY or give a key file with --master-key-file \(.*master-key\.json does not exist; `latchkey keys init` makes one\)$/),
    )
    assert.ok(!existsSync(file))
    assert.deepEqual(resolveKeyringSource({ inline: '', file, createIfMissing: true }), { source: { kind: 'file', path: file }, created: true })
    const made = readFileSync(file, 'utf8')
    assert.deepEqual(resolveKeyringSource({ inline: undefined, file, createIfMissing: true }), { source: { kind: 'file', path: file }, created: false })
    assert.equal(readFileSync(file, 'utf8'), made, 'an existing file is kept')
    writeFileSync(file, '{"broken": true}')
    assert.throws(() => resolveKeyringSource({ inline: undefined, file, createIfMissing: true }), refused(/^the master key has no keys$/))
  })

  test('derived secrets: one per purpose, the same from the same index key, independent of the sealing keys', () => {
    const keyring = newKeyring()
    const secret = deriveSecret(keyring, 'sessions')
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/)
    assert.equal(deriveSecret(withNewActiveKey(keyring), 'sessions'), secret)
    assert.notEqual(deriveSecret(keyring, 'csrf'), secret)
    assert.notEqual(deriveSecret({ ...keyring, indexKey: Buffer.alloc(32, 7) }, 'sessions'), secret)
  })

  test('derived secrets stay the same from one version to the next: HKDF-SHA256, salt "latchkey keyring v1", info "latchkey <purpose>"', () => {
    // Computed once with node:crypto's hkdfSync from the parameters above. A changed derivation would
    // sign every browser out and break every cookie and form in flight at the upgrade.
    const keyring = { activeKeyId: 'a', keys: new Map(), indexKey: Buffer.alloc(32, 1) }
    assert.equal(deriveSecret(keyring, 'sessions'), 'Zp0iMKVI1AlqoAVF3e50nKG-hwHhYICHjgZQ6JXvG9w')
  })
})

function readdirNames(folder: string): string[] {
  return readdirSync(folder).sort()
}
