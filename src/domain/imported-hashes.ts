import { pbkdf2, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import argon2 from 'argon2'
import bcrypt from 'bcryptjs'

/**
 * Password hashes made elsewhere and imported with their people (`latchkey user import`): bcrypt,
 * argon2id and Django's PBKDF2-SHA256. Each is checked by its own library; the first successful
 * sign-in replaces it with Latchkey's scrypt (src/domain/sign-in.ts). Parameters are bounded so that
 * an imported row cannot make one sign-in cost minutes or gigabytes.
 */
export type ImportedHashFormat = 'bcrypt' | 'argon2id' | 'pbkdf2_sha256'

interface Verifier {
  format: ImportedHashFormat
  /** Whether the stored text is this format with parameters within bounds. */
  matches(stored: string): boolean
  verify(password: string, stored: string): Promise<boolean>
}

const pbkdf2Async = promisify(pbkdf2)

/** `$2a$`, `$2b$` and `$2y$` are the same algorithm (the letters mark fixed bugs of other libraries); cost 4 to 15. */
const BCRYPT = /^\$2[aby]\$(0[4-9]|1[0-5])\$[./A-Za-z0-9]{53}$/

/** A PHC string of argon2id, version 19; memory in KiB up to 256 MiB, at most 10 passes and 16 lanes. */
const ARGON2ID = /^\$argon2id\$v=19\$([mtp]=\d{1,9}),([mtp]=\d{1,9}),([mtp]=\d{1,9})\$[A-Za-z0-9+/]{11,}\$[A-Za-z0-9+/]{22,}$/
const ARGON2_LIMITS: Record<string, [number, number]> = { m: [8, 262_144], t: [1, 10], p: [1, 16] }

function argon2ParamsWithinBounds(stored: string): boolean {
  const found = ARGON2ID.exec(stored)
  if (!found) return false
  const params = new Map(found.slice(1, 4).map((pair) => pair.split('=') as [string, string]))
  return params.size === 3 && [...params].every(([key, value]) => Number(value) >= ARGON2_LIMITS[key]![0] && Number(value) <= ARGON2_LIMITS[key]![1])
}

/** Django's `pbkdf2_sha256$<iterations>$<salt>$<base64 of the 32-byte key>`; at most 5 million iterations. */
const DJANGO_PBKDF2 = /^pbkdf2_sha256\$([1-9]\d{0,6})\$([^$]{1,128})\$([A-Za-z0-9+/]{43}=)$/
const PBKDF2_MAX_ITERATIONS = 5_000_000

const VERIFIERS: Verifier[] = [
  {
    format: 'bcrypt',
    matches: (stored) => BCRYPT.test(stored),
    verify: (password, stored) => bcrypt.compare(password, stored),
  },
  {
    format: 'argon2id',
    matches: argon2ParamsWithinBounds,
    verify: (password, stored) => argon2.verify(stored, password),
  },
  {
    format: 'pbkdf2_sha256',
    matches: (stored) => {
      const found = DJANGO_PBKDF2.exec(stored)
      return !!found && Number(found[1]) <= PBKDF2_MAX_ITERATIONS
    },
    async verify(password, stored) {
      const [, iterations, salt, hash] = DJANGO_PBKDF2.exec(stored)!
      const expected = Buffer.from(hash!, 'base64')
      const key = await pbkdf2Async(password, salt!, Number(iterations), expected.length, 'sha256')
      return timingSafeEqual(key, expected)
    },
  },
]

/** The imported format of a stored hash, or undefined when it is none of them (or out of bounds). */
export function importedHashFormat(stored: string): ImportedHashFormat | undefined {
  return VERIFIERS.find((verifier) => verifier.matches(stored))?.format
}

/** Checks a password against an imported hash; undefined when the hash is not one of the imported formats. */
export async function verifyImportedHash(password: string, stored: string): Promise<boolean | undefined> {
  const verifier = VERIFIERS.find((candidate) => candidate.matches(stored))
  return verifier ? verifier.verify(password, stored) : undefined
}
