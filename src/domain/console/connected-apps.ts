import type { AccessLevel, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'

export interface ConnectedApp {
  appId: string
  appName: string
  owner: Pick<UserRecord, 'name' | 'screenName'> | undefined
  accessLevel: AccessLevel
  authorizedAtMs: number
}

/** Every app this person has authorized (holds a live access token of), with its owner. */
export async function connectedApps(deps: Pick<DomainDeps, 'stores'>, userId: string): Promise<ConnectedApp[]> {
  const authorizations = await deps.stores.admin.authorizations(userId)
  return Promise.all(
    authorizations.map(async (authorization) => {
      const app = await deps.stores.apps.findById(authorization.appId)
      const owner = app && (await deps.stores.users.findById(app.ownerId))
      return { ...authorization, owner: owner ? { name: owner.name, screenName: owner.screenName } : undefined }
    }),
  )
}
