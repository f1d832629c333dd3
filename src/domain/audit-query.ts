import { ServiceError } from '../errors/service-error.ts'
import type { AuditEventRecord } from '../storage/records.ts'
import type { DomainDeps } from './deps.ts'
import { findApp } from './registry/apps.ts'
import { findUserByIdOrScreenName } from './registry/users.ts'

export interface AuditQuery {
  /** An app id or consumer key. An id finds the events of a deleted app too. */
  app?: string
  /** A user id or a screen name. */
  user?: string
  sinceMs?: number
  limit?: number
}

export type ListedAuditEvent = AuditEventRecord & { screenName: string | null }

/** The events that match, newest first, each with the screen name of its person (if they still exist). */
export async function listAuditEvents(deps: Pick<DomainDeps, 'stores' | 'clock'>, query: AuditQuery): Promise<ListedAuditEvent[]> {
  const appId = query.app === undefined ? undefined : await auditedAppId(deps, query.app)
  const userId = query.user === undefined ? undefined : (await findUserByIdOrScreenName(deps, query.user)).id
  const events = await deps.stores.audit.list({ appId, userId, sinceMs: query.sinceMs, limit: query.limit })
  const names = new Map<string, string | null>()
  for (const id of new Set(events.map((e) => e.userId).filter((id) => id !== null))) {
    names.set(id, (await deps.stores.users.findById(id))?.screenName ?? null)
  }
  return events.map((e) => ({ ...e, screenName: e.userId === null ? null : (names.get(e.userId) ?? null) }))
}

async function auditedAppId(deps: Pick<DomainDeps, 'stores' | 'clock'>, ref: string): Promise<string> {
  try {
    return (await findApp(deps, ref)).id
  } catch (error) {
    // The trail outlives the app: a numeric id still finds the events of a deleted one.
    if (error instanceof ServiceError && /^\d+$/.test(ref)) return ref
    throw error
  }
}
