import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import { assertOneLine } from '../plain-text.ts'

/**
 * An operator removes a person's upstream identity (docs/accounts.md): its next sign-in is a first
 * sign-in again (LinkPolicy). 404 when the person has no such link. Audited `identity.unlinked`.
 */
export async function unlinkIdentity(deps: Pick<DomainDeps, 'stores' | 'clock'>, input: { userId: string; provider: string; subject: string }): Promise<void> {
  assertOneLine(input.provider, 'provider', 'provider')
  assertOneLine(input.subject, 'subject', 'subject')
  if (!(await deps.stores.users.findById(input.userId))) throw new ServiceError(E.notFound, { message: `no user with id ${input.userId}` })
  const link = await deps.stores.identityLinks.find(input.provider, input.subject)
  if (!link || link.userId !== input.userId) throw new ServiceError(E.notFound, { message: 'this person has no such identity' })
  await changeWithAudit(deps, async (tx, audit) => {
    if (!(await tx.identityLinks.remove(input.provider, input.subject))) throw new ServiceError(E.notFound, { message: 'this person has no such identity' })
    await audit({ event: 'identity.unlinked', userId: input.userId, detail: { provider: input.provider, subject: input.subject } })
  })
}
