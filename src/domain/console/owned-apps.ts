import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { AppRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'

/** How many apps one page of the console lists. */
export const APPS_PER_PAGE = 100

/** A page of the apps a person owns, in id order, after `afterId`; `nextAfter` when there are more. */
export async function ownedApps(
  deps: Pick<DomainDeps, 'stores'>,
  ownerId: string,
  afterId?: string,
): Promise<{ apps: AppRecord[]; nextAfter?: string }> {
  const rows = await deps.stores.listings.appsPage({ ownerId, limit: APPS_PER_PAGE + 1, ...(afterId === undefined ? {} : { afterId }) })
  const apps = rows.slice(0, APPS_PER_PAGE)
  return rows.length > APPS_PER_PAGE ? { apps, nextAfter: apps.at(-1)!.id } : { apps }
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
