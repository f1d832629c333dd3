import type { AuditStore, Stores } from '../storage/types.ts'
import type { DomainDeps } from './deps.ts'

/**
 * The domain as one actor sees it: every audit row written through it, by whichever use case and
 * inside units of work too, names the actor (`detail.actor`, e.g. `user:123` for a person at the
 * developer console). The use cases stay the CLI's own; only the trail learns who called them.
 */
export function withAuditActor(domain: DomainDeps, actor: string): DomainDeps {
  const tagged = (audit: AuditStore): AuditStore => ({
    ...audit,
    record: (event) => audit.record({ ...event, detail: { ...event.detail, actor } }),
  })
  const stores: Stores = {
    ...domain.stores,
    audit: tagged(domain.stores.audit),
    transaction: (work) => domain.stores.transaction((tx) => work({ ...tx, audit: tagged(tx.audit) })),
  }
  return { ...domain, stores }
}

/** The actor of the developer console and the settings pages: the person signed in. */
export const personActor = (userId: string) => `user:${userId}`

/** The actor of the admin API: the admin token presented (its id, never the token). */
export const adminTokenActor = (adminTokenId: string) => `admin_token:${adminTokenId}`
