import type { UserRecord } from '../../storage/records.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import { hashPassword } from '../passwords.ts'
import { validPassword } from '../registry/users.ts'
import { confirmPassword, type SignInThrottle } from '../sign-in.ts'

/**
 * A person changes their own password (the settings page): the current one is checked as a
 * sign-in is (same throttle), the new one by the registration rules, and every browser session of
 * theirs ends with it, the one they are using included (the page starts a new one for it).
 */
export async function changeOwnPassword(
  deps: Pick<DomainDeps, 'stores' | 'clock' | 'observe'> & { throttle: SignInThrottle },
  input: { user: UserRecord; current: string; next: string; address: string },
): Promise<UserRecord> {
  const next = validPassword(input.next)
  await confirmPassword(deps, { user: input.user, password: input.current, address: input.address })
  const passwordHash = await hashPassword(next)
  // The new hash, the raised session generation and the audit row: one unit of work.
  const updated = await changeWithAudit(deps, async (tx, audit) => {
    const changed = await tx.users.update(input.user.id, { passwordHash, endSessions: true })
    if (changed) await audit({ event: 'user.updated', userId: changed.id, address: input.address, detail: { fields: ['password'], sessions_ended: true } })
    return changed
  })
  if (!updated) throw new ServiceError(E.notFound, { message: `no user with id ${input.user.id}` })
  return updated
}
