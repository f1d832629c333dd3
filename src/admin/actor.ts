import type { DomainDeps } from '../domain/deps.ts'
import type { AuditStore, Stores } from '../storage/types.ts'

/**
 * The domain as one admin token sees it: every audit row written through it, by whichever use case
 * and inside units of work too, names the token as its actor (`detail.actor`). The use cases stay
 * the CLI's own; only the trail learns who called them.
 */
export function actingAs(domain: DomainDeps, adminTokenId: string): DomainDeps {
  const actor = `admin_token:${adminTokenId}`
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
