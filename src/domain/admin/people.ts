import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { UserRecord } from '../../storage/records.ts'
import { changeWithAudit } from '../audit.ts'
import { tokenSha256 } from '../revocations/events.ts'
import { wireName } from '../vocabulary.ts'
import type { DomainDeps } from '../deps.ts'
import { hashPassword } from '../passwords.ts'
import { findApp } from '../registry/apps.ts'
import { validName, validPassword } from '../registry/users.ts'
import { validEmail } from '../accounts/email-address.ts'
import { EmailTakenError } from '../../storage/errors.ts'

type Deps = Pick<DomainDeps, 'stores' | 'clock' | 'observe'>

export async function findUser(deps: Pick<DomainDeps, 'stores'>, id: string): Promise<UserRecord> {
  const user = await deps.stores.users.findById(id)
  if (!user) throw new ServiceError(E.notFound, { message: `no user with id ${id}` })
  return user
}


/**
 * A new display name or password, by the same rules as at registration, or disabled / enabled again:
 * a disabled person cannot sign in and their OAuth 1.0a access tokens get 401 code 89 until enabled
 * again. A new password or disabling ends every browser session of the person (their session
 * generation is raised in the same statement), and disabling ends every OAuth 2.0 grant they gave,
 * so enabling them again brings no old session and no refresh token back.
 */
export async function updateUser(deps: Deps, id: string, input: { name?: string; password?: string; disabled?: boolean; email?: string | null }): Promise<UserRecord> {
  const user = await findUser(deps, id)
  const patch = {
    ...(input.disabled === undefined || input.disabled === !!user.isDisabled ? {} : { disabledAtMs: input.disabled ? deps.clock.nowMs() : null }),
    ...(input.name === undefined ? {} : { name: validName(input.name) }),
    ...(input.email === undefined ? {} : { email: input.email === null ? null : validEmail(input.email) }),
    ...(input.password === undefined ? {} : { passwordHash: await hashPassword(validPassword(input.password)) }),
    ...(input.password !== undefined || input.disabled === true ? { endSessions: true } : {}),
  }
  const detail = { fields: Object.keys(input).map(wireName).sort(), ...(input.disabled === undefined ? {} : { disabled: input.disabled }), ...(patch.endSessions ? { sessions_ended: true } : {}) }
  const isDisabling = patch.disabledAtMs !== undefined && patch.disabledAtMs !== null
  // The password is hashed above, before the unit: nothing slow holds the database.
  const updated = await changeWithAudit(deps, async (tx, audit) => {
    const changed = await tx.users.update(id, patch)
    const grants = changed && isDisabling ? await tx.oauth2Grants.revokeAll({ userId: id }, deps.clock.nowMs()) : 0
    if (changed) await audit({ event: 'user.updated', userId: id, detail: { ...detail, ...(grants > 0 ? { oauth2_grants_ended: grants } : {}) } })
    return changed
  }).catch((error: unknown) => {
    // The unique index refused the address (the unit is rolled back).
    throw error instanceof EmailTakenError ? new ServiceError(E.emailTaken, { field: 'email', cause: error }) : error
  })
  if (!updated) throw new ServiceError(E.notFound, { message: `no user with id ${id}` })
  return updated
}

/**
 * Withdraws a person's consent to an app: every access token they hold of it is revoked, so from the
 * next request on each gets 401 code 89, on every instance (tokens are looked up per request), and
 * every OAuth 2.0 grant of theirs to it ends.
 */
export async function revokeAuthorization(deps: Deps, userId: string, appId: string): Promise<void> {
  await findUser(deps, userId)
  const app = await findApp(deps, appId)
  const { tokens, grants } = await changeWithAudit(deps, async (tx, audit) => {
    const nowMs = deps.clock.nowMs()
    const revoked = { tokens: await tx.accessTokens.revokeAuthorization(userId, app.id, nowMs), grants: await tx.oauth2Grants.revokeAll({ appId: app.id, userId }, nowMs) }
    if (revoked.tokens + revoked.grants > 0) await audit({ event: 'authorization.revoked', appId: app.id, userId, detail: revoked })
    return revoked
  })
  if (tokens + grants === 0) throw new ServiceError(E.notFound, { message: `user ${userId} has not authorized app ${app.id}` })
  for (let i = 0; i < tokens; i++) deps.observe?.tokenInvalidated('access_token', 'admin')
  for (let i = 0; i < grants; i++) deps.observe?.tokenInvalidated('user_access_token', 'admin')
}

/** Invalidates the app's outstanding bearer token, as POST /oauth2/invalidate_token would. */
export async function revokeBearerToken(deps: Deps, appRef: string): Promise<void> {
  const app = await findApp(deps, appRef)
  const revoked = await changeWithAudit(deps, async (tx, audit) => {
    const live = await tx.bearerTokens.findLive(app.id)
    if (!live || !(await tx.bearerTokens.revoke(live.token, deps.clock.nowMs()))) return false
    await audit({ event: 'bearer_token.invalidated', appId: app.id, detail: { via: 'admin' }, endedTokenSha256: tokenSha256(live.token) })
    return true
  })
  if (!revoked) throw new ServiceError(E.notFound, { message: `app ${app.id} has no outstanding bearer token` })
  deps.observe?.tokenInvalidated('bearer_token', 'admin')
}
