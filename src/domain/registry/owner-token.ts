import { E } from '../../errors/catalogue.ts'
import { assertThat } from '../../errors/service-error.ts'
import type { AccessTokenRecord, AppRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import { issueOrReuseAccessToken } from '../oauth1/issue-access-token.ts'
import { findApp } from './apps.ts'

/**
 * The owner's own access token for their app, at the app's access level, as a developer portal's
 * "generate access token" gives it: the same credential the three-legged flow would issue.
 */
export async function issueOwnerToken(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  ref: string,
): Promise<{ app: AppRecord; owner: UserRecord; token: AccessTokenRecord }> {
  const app = await findApp(deps, ref)
  // The token would only ever answer 416; say so now instead.
  assertThat(!app.isSuspended, E.invalidParameter, { message: `app ${app.id} is suspended: lift the suspension first` })
  const owner = await deps.stores.users.findById(app.ownerId)
  if (!owner) throw new Error(`app ${app.id} has no owner record`)
  // The token would only ever answer 89 while the owner is disabled.
  assertThat(!owner.isDisabled, E.invalidParameter, { message: `the owner of app ${app.id} is disabled; enable them first (PATCH /admin/v1/users/${owner.id} {"disabled": false})` })
  const token = await issueOrReuseAccessToken(deps, { appId: app.id, userId: owner.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
  return { app, owner, token }
}
