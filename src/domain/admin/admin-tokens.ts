import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { randomAlphanumeric } from '../../protocol/secrets.ts'
import type { AdminTokenRecord } from '../../storage/admin-types.ts'
import { changeWithAudit } from '../audit.ts'
import { assertOneLine } from '../plain-text.ts'
import type { DomainDeps } from '../deps.ts'

type AdminDeps = Pick<DomainDeps, 'stores' | 'clock' | 'newId' | 'observe'>

/** The prefix makes a leaked admin token recognisable (secret scanners, log greps). */
const TOKEN_PREFIX = 'lkadm_'
const TOKEN_PATTERN = /^lkadm_[A-Za-z0-9]{43}$/

/** A new admin token; the token itself is in this answer only. */
export async function createAdminToken(deps: AdminDeps, name: string): Promise<{ record: AdminTokenRecord; token: string }> {
  const trimmed = name.trim()
  assertThat(trimmed.length >= 1 && trimmed.length <= 64, E.invalidParameter, { message: 'admin token name must be 1 to 64 characters' })
  assertOneLine(trimmed, 'name', 'admin token name')
  const record: AdminTokenRecord = { id: deps.newId(), name: trimmed, createdAtMs: deps.clock.nowMs(), revokedAtMs: null }
  const token = `${TOKEN_PREFIX}${randomAlphanumeric(43)}`
  // The token and its audit row in one unit of work: neither is kept without the other.
  await changeWithAudit(deps, async (tx, audit) => {
    await tx.adminTokens.create(record, token)
    await audit({ event: 'admin_token.created', detail: { admin_token_id: record.id, name: record.name } })
  })
  deps.observe?.tokenIssued('admin_token')
  return { record, token }
}

export async function listAdminTokens(deps: Pick<DomainDeps, 'stores'>): Promise<AdminTokenRecord[]> {
  return deps.stores.adminTokens.list()
}

/** From now on the token is refused by every instance (each request looks it up). */
export async function revokeAdminToken(deps: Pick<DomainDeps, 'stores' | 'clock' | 'observe'>, id: string): Promise<void> {
  const revoked = await changeWithAudit(deps, async (tx, audit) => {
    if (!(await tx.adminTokens.revoke(id, deps.clock.nowMs()))) return false
    await audit({ event: 'admin_token.revoked', detail: { admin_token_id: id } })
    return true
  })
  if (!revoked) throw new ServiceError(E.notFound, { message: `no live admin token with id ${id}` })
  deps.observe?.tokenInvalidated('admin_token', 'admin')
}

/** The live admin token presented, or undefined (unknown, revoked, malformed). */
export async function findLiveAdminToken(deps: Pick<DomainDeps, 'stores'>, token: string): Promise<AdminTokenRecord | undefined> {
  // Strangers' strings are not even hashed when they cannot be one of ours.
  if (!TOKEN_PATTERN.test(token)) return undefined
  const record = await deps.stores.adminTokens.findByToken(token)
  return record && record.revokedAtMs === null ? record : undefined
}
