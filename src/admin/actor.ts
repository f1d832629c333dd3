import { withAuditActor } from '../domain/actor.ts'
import type { DomainDeps } from '../domain/deps.ts'

/**
 * The domain as one admin token sees it: every audit row written through it names the token as
 * its actor (`detail.actor`), as the console's rows name the person (domain/actor.ts).
 */
export function actingAs(domain: DomainDeps, adminTokenId: string): DomainDeps {
  return withAuditActor(domain, `admin_token:${adminTokenId}`)
}
