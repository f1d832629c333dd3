import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

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

/**
 * Constant-time check of a password against a stored hash; false for NO_PASSWORD or a malformed
 * hash, after checking it against the dummy hash, so the time taken does not tell them apart.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) {
    await verifyPassword(password, await dummyPasswordHash())
    return false
  }
  const expected = Buffer.from(hash, 'base64url')
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) })
  return key.length === expected.length && timingSafeEqual(key, expected)
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
