import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import type { Keyring } from './keyring.ts'

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
}

const PREFIX = 'v1.'
const CACHE_SIZE = 10_000

export class SealError extends Error {
  override name = 'SealError'
}

/** `keyring` is asked on every use, so a rotated key file is seen at once. */
export function createSealer(keyring: (force?: boolean) => Keyring): Sealer {
  // Opening is the hot path of every signed request; a sealed value never changes what it opens to,
  // so the cache is keyed by the sealed text itself and is never stale.
  const opened = new Map<string, string>()
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
      if (opened.size >= CACHE_SIZE) opened.delete(opened.keys().next().value as string)
      opened.set(sealed, plain)
      return plain
    },
    index(plain) {
      return createHmac('sha256', keyring().indexKey).update(plain, 'utf8').digest('base64url')
    },
    isCurrent(sealed) {
      return sealed.startsWith(`${PREFIX}${keyring().activeKeyId}.`)
    },
    activeKeyId: () => keyring().activeKeyId,
  }
}

export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX)
}
