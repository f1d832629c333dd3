import { E } from '../../errors/catalogue.ts'
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
