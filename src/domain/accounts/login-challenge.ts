import { createHash } from 'node:crypto'
import { E } from '../../errors/catalogue.ts'
import { constantTimeEqual, randomAlphanumeric } from '../../protocol/secrets.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { ExternalSignInRecord } from '../../storage/account-types.ts'
import type { DomainDeps } from '../deps.ts'
import { assertOneLine } from '../plain-text.ts'

/**
 * A login delegation's challenge the platform may still answer: unknown, of another kind, used or
 * expired are all one 404, so the answer tells a guesser nothing.
 */
export async function openLoginChallenge(deps: Pick<DomainDeps, 'stores' | 'clock'>, challenge: string): Promise<ExternalSignInRecord> {
  assertOneLine(challenge, 'challenge', 'challenge')
  const record = challenge.length <= 200 ? await deps.stores.externalSignIns.find(challenge) : undefined
  const isOpen = record && record.kind === 'delegation' && record.usedAtMs === undefined && record.expiresAtMs > deps.clock.nowMs()
  if (!isOpen) throw new ServiceError(E.notFound, { message: 'no such login challenge (unknown, used or expired)' })
  return record
}

/**
 * The `login_verifier` of an accepted challenge, and what is stored of it. The browser that started
 * the sign-in knows the challenge; only the one the platform sends to `redirect_to` knows the
 * verifier, so a challenge handed to someone else cannot be redeemed by whoever started it.
 */
export function newLoginVerifier(): { verifier: string; sha256: string } {
  const verifier = randomAlphanumeric(43)
  return { verifier, sha256: sha256Hex(verifier) }
}

/** Whether the browser came back with the verifier of this accepted challenge (constant-time). */
export function isLoginVerifier(verifierSha256: string, presented: string | undefined): boolean {
  return presented !== undefined && presented.length <= 200 && constantTimeEqual(sha256Hex(presented), verifierSha256)
}

const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex')
