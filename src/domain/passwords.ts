import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { importedHashFormat, verifyImportedHash, type ImportedHashFormat } from './imported-hashes.ts'

/**
 * Password hashing with Node's scrypt (RFC 7914): N=2^15, r=8, p=1, 16-byte random salt per user,
 * 32-byte key; about 32 MiB and a few tens of milliseconds per hash. Stored as
 * `scrypt$N$r$p$salt$hash` (base64url) so the parameters can be raised later.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 }
const KEY_LENGTH = 32

function derive(password: string, salt: Buffer, params: typeof PARAMS): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r }
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  )
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, PARAMS)
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** Latchkey's scrypt format, with parameters an imported row may carry: N a power of two up to 2^17, r up to 16, p up to 4. */
const SCRYPT = /^scrypt\$(\d{1,7})\$(\d{1,2})\$(\d)\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{43})$/

function scryptParams(stored: string): { params: typeof PARAMS; salt: string; hash: string } | undefined {
  const found = SCRYPT.exec(stored)
  if (!found) return undefined
  const [N, r, p] = found.slice(1, 4).map(Number) as [number, number, number]
  const isBounded = N >= 2 && N <= 2 ** 17 && (N & (N - 1)) === 0 && r >= 1 && r <= 16 && p >= 1 && p <= 4
  return isBounded ? { params: { N, r, p }, salt: found[4]!, hash: found[5]! } : undefined
}

export type PasswordHashFormat = 'scrypt' | ImportedHashFormat

/** The format of a stored hash (Latchkey's scrypt or an imported one), or undefined when it is none. */
export function passwordHashFormat(stored: string): PasswordHashFormat | undefined {
  return scryptParams(stored) ? 'scrypt' : importedHashFormat(stored)
}

/** Whether a stored hash is Latchkey's scrypt with today's parameters; any other is replaced at the next sign-in. */
export function isCurrentHash(stored: string): boolean {
  const found = scryptParams(stored)
  return !!found && found.params.N === PARAMS.N && found.params.r === PARAMS.r && found.params.p === PARAMS.p
}

/**
 * Constant-time check of a password against a stored hash, in Latchkey's scrypt format or an
 * imported one (src/domain/imported-hashes.ts); false for NO_PASSWORD or a malformed hash, after
 * checking it against the dummy hash, so the time taken does not tell them apart.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const scrypt = scryptParams(stored)
  if (scrypt) {
    const expected = Buffer.from(scrypt.hash, 'base64url')
    const key = await derive(password, Buffer.from(scrypt.salt, 'base64url'), scrypt.params)
    return key.length === expected.length && timingSafeEqual(key, expected)
  }
  const imported = await verifyImportedHash(password, stored).catch(() => false)
  if (imported !== undefined) return imported
  await verifyPassword(password, await dummyPasswordHash())
  return false
}

/**
 * The stored hash of a person who has no password (created by an upstream sign-in or login
 * delegation): no password matches it, and checking one costs what checking a real hash does.
 */
export const NO_PASSWORD = '!'

let dummyHash: Promise<string> | undefined

/** A hash of a random password, checked when the account does not exist, so timing says nothing. */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'))
  return dummyHash
}
