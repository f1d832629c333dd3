import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import { SealError } from '../errors.ts'
import { deriveSecret, type Keyring } from './keyring.ts'

/**
 * Seals secrets at rest with AES-256-GCM (NIST SP 800-38D: 96-bit random IV, 128-bit tag), as
 * `v1.<key id>.<iv>.<ciphertext+tag>`, so the key id travels beside every value; and finds them
 * through a keyed hash (HMAC-SHA256 under the index key) so the plain value is never stored.
 */
export interface Sealer {
  seal(plain: string): string
  /** The plain value; throws when the key is unknown or the value was tampered with. */
  open(sealed: string): string
  /** The keyed hash that finds a value: stable for a value, useless without the index key. */
  index(plain: string): string
  /** Whether a stored value is sealed under the active key (else `keys rotate` re-seals it). */
  isCurrent(sealed: string): boolean
  activeKeyId(): string
  /** A secret for one purpose, derived by HKDF from the keyring in use (keyring.ts deriveSecret). */
  derive(purpose: string): string
}

const PREFIX = 'v1.'

/**
 * Entries of each cache. A signed request opens four values (consumer key and secret, token and
 * secret) and hashes two; 100,000 keeps 25,000 active credentials' worth, a few tens of MB.
 */
export const SEALER_CACHE_SIZE = 100_000

/** Presented values longer than any credential we issue are hashed but not kept: strangers choose them. */
const MAX_INDEXED_LENGTH = 256

export { SealError }

/** `keyring` is asked on every use, so a rotated key file is seen at once. */
export function createSealer(keyring: (force?: boolean) => Keyring, options: { cacheSize?: number } = {}): Sealer {
  const cacheSize = options.cacheSize ?? SEALER_CACHE_SIZE
  // Opening is the hot path of every signed request; a sealed value never changes what it opens to,
  // so the cache is keyed by the sealed text itself and is never stale.
  const opened = new LruCache(cacheSize)
  // Hashes of presented values (consumer keys, tokens), valid or not: a hit says only that the same
  // text was presented lately, never whether it exists, so timing still tells a stranger nothing.
  // Keyed under the index key in use; a different key (a replaced key file) starts afresh.
  const indexed = new LruCache(cacheSize)
  let indexedUnder: Buffer | undefined
  return {
    seal(plain) {
      const ring = keyring()
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', ring.keys.get(ring.activeKeyId)!, iv)
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${PREFIX}${ring.activeKeyId}.${iv.toString('base64url')}.${body.toString('base64url')}`
    },
    open(sealed) {
      const hit = opened.get(sealed)
      if (hit !== undefined) return hit
      const [version, keyId, iv, body] = sealed.split('.')
      // A key we have not seen: another process rotated; read the key file again before giving up.
      const key = keyId === undefined ? undefined : (keyring().keys.get(keyId) ?? keyring(true).keys.get(keyId))
      if (`${version}.` !== PREFIX || !key || !iv || !body) throw new SealError(`cannot open a value sealed under key ${keyId ?? '?'}`)
      const bytes = Buffer.from(body, 'base64url')
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
      decipher.setAuthTag(bytes.subarray(bytes.length - 16))
      let plain: string
      try {
        plain = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8')
      } catch (cause) {
        throw new SealError(`a value sealed under key ${keyId} failed its integrity check`, { cause })
      }
      opened.set(sealed, plain)
      return plain
    },
    index(plain) {
      const indexKey = keyring().indexKey
      if (indexKey !== indexedUnder) {
        if (!indexedUnder?.equals(indexKey)) indexed.clear()
        indexedUnder = indexKey
      }
      const hit = indexed.get(plain)
      if (hit !== undefined) return hit
      const hash = createHmac('sha256', indexKey).update(plain, 'utf8').digest('base64url')
      if (plain.length <= MAX_INDEXED_LENGTH) indexed.set(plain, hash)
      return hash
    },
    isCurrent(sealed) {
      return sealed.startsWith(`${PREFIX}${keyring().activeKeyId}.`)
    },
    activeKeyId: () => keyring().activeKeyId,
    derive: (purpose) => deriveSecret(keyring(), purpose),
  }
}

/**
 * Least recently used first out, on a Map's insertion order: a hit moves its entry to the back, so
 * a busy population stays cached while a stranger's one-off values pass through.
 */
class LruCache {
  private readonly entries = new Map<string, string>()
  constructor(private readonly capacity: number) {}

  get(key: string): string | undefined {
    const value = this.entries.get(key)
    if (value !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, value)
    }
    return value
  }

  set(key: string, value: string): void {
    if (this.capacity <= 0) return
    this.entries.delete(key)
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string)
    this.entries.set(key, value)
  }

  clear(): void {
    this.entries.clear()
  }
}

export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX)
}
