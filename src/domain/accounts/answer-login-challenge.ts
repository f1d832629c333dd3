import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { DelegationOutcome } from '../../storage/account-types.ts'
import type { AuditDetail } from '../../storage/records.ts'
import { recordAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import { assertOneLine } from '../plain-text.ts'
import { newLoginVerifier, openLoginChallenge } from './login-challenge.ts'

/** The answer's texts are one line each: they become a person's identity and name, or a page's words. */
function assertAnswerText(outcome: DelegationOutcome): void {
  if ('accepted' in outcome) {
    assertOneLine(outcome.accepted.subject, 'subject', 'subject')
    if (outcome.accepted.name !== undefined) assertOneLine(outcome.accepted.name, 'name', 'name')
  } else if (outcome.rejected.description !== undefined) {
    assertOneLine(outcome.rejected.description, 'error_description', 'error_description')
  }
}

/**
 * The platform's answer to a login challenge (accept or reject), recorded once: a second answer is
 * 409 (1119), a challenge used, expired or unknown 404. The browser's return spends it
 * (src/pages/delegated-login-routes.ts). Audited without the challenge itself.
 */
export async function answerLoginChallenge(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  challenge: string,
  answer: { accepted: Extract<DelegationOutcome, { accepted: unknown }>['accepted'] } | Extract<DelegationOutcome, { rejected: unknown }>,
): Promise<{ verifier?: string }> {
  const made = 'accepted' in answer ? newLoginVerifier() : undefined
  const outcome: DelegationOutcome = 'accepted' in answer ? { accepted: answer.accepted, verifierSha256: made!.sha256 } : answer
  assertAnswerText(outcome)
  const record = await openLoginChallenge(deps, challenge)
  if (record.outcome) throw new ServiceError(E.loginChallengeAnswered)
  if (!(await deps.stores.externalSignIns.settle(challenge, outcome, deps.clock.nowMs()))) {
    // Answered, used or expired since it was read: say which as a fresh read does.
    await openLoginChallenge(deps, challenge)
    throw new ServiceError(E.loginChallengeAnswered)
  }
  const detail: AuditDetail = 'accepted' in outcome ? { subject: outcome.accepted.subject, remember: outcome.accepted.remember } : { error: outcome.rejected.error }
  await recordAudit(deps, {
    event: 'accepted' in outcome ? 'login_challenge.accepted' : 'login_challenge.rejected',
    appId: record.appId,
    detail,
  })
  return made ? { verifier: made.verifier } : {}
}
