import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'

// Imported first by every mutation suite (scripts/mutation-suites.mjs), and by the few test files of
// npm test that make a person for each of hundreds of cases without testing passwords themselves
// (each says so): every user a test makes hashes a password with scrypt at N=2^15, most of such a
// run's CPU time. Here scrypt at the production cost (and only that cost) derives its key at N=2^10
// instead. Hashes still record N=2^15 and verify the same way, so sign-in, the dummy hash and the
// spies that count scrypt calls behave as without it; a mutant that changes the parameters
// themselves still reaches scrypt unchanged.
const PRODUCTION_N = 2 ** 15
const original = crypto.scrypt
const cheaper = (password: crypto.BinaryLike, salt: crypto.BinaryLike, length: number, options: crypto.ScryptOptions, callback: (error: Error | null, key: Buffer) => void) =>
  original(password, salt, length, options?.N === PRODUCTION_N ? { ...options, N: 2 ** 10 } : options, callback)
Object.assign(crypto, { scrypt: cheaper })
syncBuiltinESMExports()
