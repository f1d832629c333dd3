import { hkdfSync, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * The master keys that seal secrets at rest. `keys` are AES-256 keys by id; `activeKeyId` seals new
 * values; the others only open old ones until `latchkey keys retire`. `indexKey` keys the hashes
 * through which sealed values are found (and which are all that is kept of request tokens and
 * verifiers); it is not rotated, since every lookup depends on it.
 */
export interface Keyring {
  activeKeyId: string
  keys: ReadonlyMap<string, Buffer>
  indexKey: Buffer
}

interface KeyringJson {
  version: 1
  activeKeyId: string
  keys: Record<string, string>
  indexKey: string
}

export class KeyringError extends Error {
  override name = 'KeyringError'
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/

function key(text: unknown, what: string): Buffer {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'base64') : Buffer.alloc(0)
  if (bytes.length !== 32) throw new KeyringError(`${what} must be 32 bytes, base64-encoded`)
  return bytes
}

/** Parses a keyring written by `serializeKeyring`; throws KeyringError naming what is wrong. */
export function parseKeyring(text: string): Keyring {
  let json: Partial<KeyringJson>
  try {
    json = JSON.parse(text) as Partial<KeyringJson>
  } catch {
    throw new KeyringError('the master key is not valid JSON')
  }
  const entries = Object.entries(json.keys ?? {})
  if (entries.length === 0) throw new KeyringError('the master key has no keys')
  const keys = new Map(entries.map(([id, value]) => {
    if (!KEY_ID.test(id)) throw new KeyringError(`key id ${JSON.stringify(id)} must be 1-32 letters, digits, - or _`)
    return [id, key(value, `key ${id}`)] as const
  }))
  if (!json.activeKeyId || !keys.has(json.activeKeyId)) throw new KeyringError('activeKeyId must name one of the keys')
  return { activeKeyId: json.activeKeyId, keys, indexKey: key(json.indexKey, 'indexKey') }
}

export function serializeKeyring(keyring: Keyring): string {
  const json: KeyringJson = {
    version: 1,
    activeKeyId: keyring.activeKeyId,
    keys: Object.fromEntries([...keyring.keys].map(([id, bytes]) => [id, bytes.toString('base64')])),
    indexKey: keyring.indexKey.toString('base64'),
  }
  return `${JSON.stringify(json, null, 2)}\n`
}

export function newKeyId(): string {
  return `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}${randomBytes(3).toString('hex')}`
}

export function newKeyring(): Keyring {
  const id = newKeyId()
  return { activeKeyId: id, keys: new Map([[id, randomBytes(32)]]), indexKey: randomBytes(32) }
}

/** The keyring with a new active key; the old keys stay to open what they sealed. */
export function withNewActiveKey(keyring: Keyring): Keyring {
  const id = newKeyId()
  return { ...keyring, activeKeyId: id, keys: new Map([...keyring.keys, [id, randomBytes(32)]]) }
}

export function withoutKey(keyring: Keyring, id: string): Keyring {
  if (id === keyring.activeKeyId) throw new KeyringError(`key ${id} is the active key; rotate first`)
  if (!keyring.keys.has(id)) throw new KeyringError(`there is no key ${id}`)
  return { ...keyring, keys: new Map([...keyring.keys].filter(([other]) => other !== id)) }
}

/** Writes the keyring file atomically (write, then rename), readable by its owner only. */
export function writeKeyringFile(path: string, keyring: Keyring): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, serializeKeyring(keyring), { mode: 0o600 })
  renameSync(temporary, path)
}

export function readKeyringFile(path: string): Keyring {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new KeyringError(`cannot read the master key file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`)
  }
  return parseKeyring(text)
}

/** Where the keys come from: inline (an environment variable) or a file that may change under us. */
export type KeyringSource = { kind: 'inline'; keyring: Keyring } | { kind: 'file'; path: string }

/**
 * The current keyring of a source. A file is read again when it changed (checked at most once a
 * second, or at once with `force` — when a value names a key we do not have yet), so every running
 * instance follows a rotation without a restart.
 */
export function watchKeyring(source: KeyringSource): (force?: boolean) => Keyring {
  if (source.kind === 'inline') return () => source.keyring
  let current = readKeyringFile(source.path)
  let seenMtimeMs = statSync(source.path).mtimeMs
  let checkedAtMs = Date.now()
  return (force = false) => {
    const now = Date.now()
    if (!force && now - checkedAtMs < 1000) return current
    checkedAtMs = now
    try {
      const mtimeMs = statSync(source.path).mtimeMs
      if (mtimeMs !== seenMtimeMs || force) {
        current = readKeyringFile(source.path)
        seenMtimeMs = mtimeMs
      }
    } catch {
      // A file briefly missing during an atomic rename: keep the keys we have.
    }
    return current
  }
}

/**
 * Where the keys come from: LATCHKEY_MASTER_KEY (a keyring written inline) wins; else the key
 * file. A missing file is made only when `createIfMissing` (the development server); anything else
 * stops with one line, since a service must not invent a key for data that may already be sealed.
 */
export function resolveKeyringSource(options: { inline: string | undefined; file: string; createIfMissing: boolean }): {
  source: KeyringSource
  created: boolean
} {
  if (options.inline) return { source: { kind: 'inline', keyring: parseKeyring(options.inline) }, created: false }
  let created = false
  try {
    statSync(options.file)
  } catch {
    if (!options.createIfMissing) {
      throw new KeyringError(
        `no master key: set LATCHKEY_MASTER_KEY or give a key file with --master-key-file (${options.file} does not exist; \`latchkey keys init\` makes one)`,
      )
    }
    writeKeyringFile(options.file, newKeyring())
    created = true
  }
  readKeyringFile(options.file)
  return { source: { kind: 'file', path: options.file }, created }
}

/** HKDF's salt (RFC 5869 §3.1): fixed, public, naming the application. */
const HKDF_SALT = 'latchkey keyring v1'

/**
 * A secret for one purpose, derived from the keyring by HKDF-SHA256 (RFC 5869) with the purpose
 * as its `info`: outputs for different purposes are independent, and none of them can be computed
 * from, or collide with, a lookup hash (HMAC under the index key itself: HKDF's extract step keys
 * its HMAC with the salt instead). The same keyring gives the same secret on every instance.
 */
export function deriveSecret(keyring: Keyring, purpose: string): string {
  return Buffer.from(hkdfSync('sha256', keyring.indexKey, HKDF_SALT, `latchkey ${purpose}`, 32)).toString('base64url')
}
