import type { AccessLevel, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import { usableScopes } from '../oauth2-user/grant-scopes.ts'

export interface ConnectedApp {
  appId: string
  appName: string
  owner: Pick<UserRecord, 'name' | 'screenName'> | undefined
  accessLevel: AccessLevel
  authorizedAtMs: number
  /** What OAuth 2.0 grants of the app allow within its current access level (X's scopes); absent when it holds only OAuth 1.0a tokens. */
  scopes?: string[]
}

/**
 * Every app this person has authorized — holds a live OAuth 1.0a access token or OAuth 2.0 grant
 * of — with its owner, one entry per app, the newest authorization first where both protocols meet.
 */
export async function connectedApps(deps: Pick<DomainDeps, 'stores'>, userId: string): Promise<ConnectedApp[]> {
  const [authorizations, grants] = await Promise.all([deps.stores.listings.authorizations(userId), deps.stores.oauth2Grants.listLive(userId)])
  const byApp = new Map<string, Omit<ConnectedApp, 'owner'> & { ownerId?: string }>(authorizations.map((a) => [a.appId, { ...a }]))
  for (const grant of grants) {
    const entry = byApp.get(grant.appId)
    const scopes = [...new Set([...(entry?.scopes ?? []), ...grant.scopes])]
    if (entry) {
      byApp.set(grant.appId, { ...entry, scopes, authorizedAtMs: Math.max(entry.authorizedAtMs, grant.createdAtMs) })
      continue
    }
    const app = await deps.stores.apps.findById(grant.appId)
    if (!app) continue
    byApp.set(grant.appId, { appId: app.id, appName: app.name, accessLevel: app.accessLevel, authorizedAtMs: grant.createdAtMs, scopes })
  }
  return Promise.all(
    [...byApp.values()].map(async (entry) => {
      const app = await deps.stores.apps.findById(entry.appId)
      const owner = app && (await deps.stores.users.findById(app.ownerId))
      // What the grants may do now: their scopes within the app's current access level.
      const scopes = entry.scopes && app ? { scopes: usableScopes(entry.scopes, app.accessLevel) } : {}
      return { ...entry, ...scopes, owner: owner ? { name: owner.name, screenName: owner.screenName } : undefined }
    }),
  )
}
