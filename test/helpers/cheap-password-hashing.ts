import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'

// For mutation testing only (imported first by every mutation suite, scripts/mutation-suites.mjs;
// npm test never loads it): every user a test makes hashes a password with scrypt at N=2^15, most of a suite's
// CPU time, and the suite runs once per mutant. Here scrypt at the production cost (and only that
// cost) derives its key at N=2^10 instead. Hashes still record N=2^15 and verify the same way, so
// sign-in, the dummy hash and the spies that count scrypt calls behave as under npm test; a mutant
// that changes the parameters themselves still reaches scrypt unchanged.
const PRODUCTION_N = 2 ** 15
const original = crypto.scrypt
const cheaper = (password: crypto.BinaryLike, salt: crypto.BinaryLike, length: number, options: crypto.ScryptOptions, callback: (error: Error | null, key: Buffer) => void) =>
  original(password, salt, length, options?.N === PRODUCTION_N ? { ...options, N: 2 ** 10 } : options, callback)
Object.assign(crypto, { scrypt: cheaper })
syncBuiltinESMExports()
