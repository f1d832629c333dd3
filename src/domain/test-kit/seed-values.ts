import { createHmac } from 'node:crypto'
import type { DomainDeps } from '../deps.ts'

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * A generated value the database keeps only as a hash (a password, an OAuth 2.0 user token) cannot
 * be read back, yet seeding again must answer the same value: so such values are derived, from a
 * secret of the master keyring and what the value is for (`label`), the same on every seeding of
 * every instance sharing the keyring, and unguessable without it. Values the database can read back
 * (keys, secrets, OAuth 1.0a and bearer tokens) are drawn at random by the use cases instead.
 */
export function derivedSeedValue(deps: Pick<DomainDeps, 'runtime'>, label: string, length: number): string {
  const secret = deps.runtime.deriveSecret('test-kit seed values')
  let out = ''
  for (let block = 0; out.length < length; block++) {
    const bytes = createHmac('sha256', secret).update(`${label}\u0000${block}`).digest()
    // A byte modulo 62 favours a few letters slightly: harmless for a test credential of 256 bits.
    for (const byte of bytes) out += ALPHANUMERIC[byte % ALPHANUMERIC.length]
  }
  return out.slice(0, length)
}
