import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { AppRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'

/** The most apps one developer may own; the console lists them all on one page. */
export const MAX_APPS_PER_OWNER = 100

/** The apps a person owns, in id order. */
export async function ownedApps(deps: Pick<DomainDeps, 'stores'>, ownerId: string): Promise<AppRecord[]> {
  return deps.stores.admin.appsPage({ ownerId, limit: MAX_APPS_PER_OWNER })
}

/**
 * One app of this owner. Anyone else's app, or an id that is not an app, is the same 404, so the
 * answer never says that an app exists.
 */
export async function ownedApp(deps: Pick<DomainDeps, 'stores'>, ownerId: string, appId: string): Promise<AppRecord> {
  const app = /^\d{1,20}$/.test(appId) ? await deps.stores.apps.findById(appId) : undefined
  if (!app || app.ownerId !== ownerId) throw new ServiceError(E.notFound, { message: 'no such app' })
  return app
}

/** A developer may own at most MAX_APPS_PER_OWNER apps. */
export async function assertRoomForApp(deps: Pick<DomainDeps, 'stores'>, ownerId: string): Promise<void> {
  const apps = await deps.stores.admin.appsPage({ ownerId, limit: MAX_APPS_PER_OWNER })
  if (apps.length >= MAX_APPS_PER_OWNER) {
    throw new ServiceError(E.invalidParameter, { message: `a developer may own at most ${MAX_APPS_PER_OWNER} apps`, field: 'name' })
  }
}
