import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'

// Imported by test/helpers/test-domain.ts, so by every test that opens the use cases or builds the
// service in process, and first by every mutation suite (scripts/mutation-suites.mjs): every user a
// test makes hashes a password with scrypt at N=2^15, tens of milliseconds of CPU each, which was
// most of such tests' time. Here scrypt at the production cost (and only that cost) derives its key
// at N=2^10 instead. Hashes still record N=2^15 and verify the same way, so sign-in, the dummy hash
// and the spies that count scrypt calls behave as without it; a mutant that changes the parameters
// themselves still reaches scrypt unchanged. The real cost is still paid where it is the subject:
// test/domain/passwords.test.ts (which does not import this) checks the hash against scrypt itself,
// and every process test (the CLI, serve, the browser and client flows) hashes at N=2^15. A test
// whose users, made in its own process, sign in on a server process of their own (which hashes at
// N=2^15) calls usingRealPasswordHashing() first.
const PRODUCTION_N = 2 ** 15
const original = crypto.scrypt
const cheaper = (password: crypto.BinaryLike, salt: crypto.BinaryLike, length: number, options: crypto.ScryptOptions, callback: (error: Error | null, key: Buffer) => void) =>
  original(password, salt, length, options?.N === PRODUCTION_N ? { ...options, N: 2 ** 10 } : options, callback)
Object.assign(crypto, { scrypt: cheaper })
syncBuiltinESMExports()

/** Scrypt at its real cost again, for the rest of this process. */
export function usingRealPasswordHashing(): void {
  Object.assign(crypto, { scrypt: original })
  syncBuiltinESMExports()
}
