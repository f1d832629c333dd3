import type { AuditDetail, AuditEventName } from '../storage/records.ts'
import type { AuditStore, Stores, TransactionStores } from '../storage/types.ts'
import type { Clock } from './clock.ts'
import { revocationEventOf, revocationOf } from './revocations/events.ts'

export interface AuditEntry {
  event: AuditEventName
  appId?: string | null
  userId?: string | null
  address?: string | null | undefined
  detail?: AuditDetail | null
  /**
   * Where the change ended one token: the hex SHA-256 of its value (tokenSha256), for the revocation
   * event only (src/domain/revocations/events.ts); never written to the audit row.
   */
  endedTokenSha256?: string
}

/**
 * Records that something happened, at the clock's now. Use cases call it after their change
 * succeeded and before they answer: if the row cannot be written the call fails (503 code 130 for
 * an outage), so no credential is ever handed out without its row. Where the change is a write,
 * both go in one unit of work (`recordAudit({ stores: tx, clock }, …)` inside stores.transaction),
 * so that neither is kept without the other; a change that ends a credential must (its revocation
 * event goes with it, and only changeWithAudit writes it). Never pass a token, secret, verifier, PIN, password
 * or signature here, not even hashed.
 */
export async function recordAudit(deps: { stores: { audit: AuditStore }; clock: Clock }, entry: AuditEntry): Promise<void> {
  if (revocationOf(entry)) throw new Error(`${entry.event} ends a credential: record it in a unit of work (changeWithAudit), which writes its revocation event too`)
  await writeAuditRow(deps, entry, deps.clock.nowMs())
}

async function writeAuditRow(deps: { stores: { audit: AuditStore } }, entry: AuditEntry, atMs: number): Promise<void> {
  await deps.stores.audit.record({
    atMs,
    event: entry.event,
    appId: entry.appId ?? null,
    userId: entry.userId ?? null,
    address: entry.address ?? null,
    detail: entry.detail ?? null,
  })
}

/** Writes an audit row in the unit of work it was handed to. */
export type AuditInUnit = (entry: AuditEntry) => Promise<void>

/**
 * A change and its audit row in one unit of work: `change` writes through `tx` and records its row
 * with `audit`; both are committed together or neither is. `change` sees only `tx` and the clock's
 * time through `audit`, so it cannot reach the outer stores (which would throw inside a unit). A
 * refusal the person must hear about is best returned and thrown after the unit, where the outer
 * stores can be read to explain it.
 */
export function changeWithAudit<T>(
  deps: { stores: Pick<Stores, 'transaction'>; clock: Clock },
  change: (tx: TransactionStores, audit: AuditInUnit) => Promise<T>,
): Promise<T> {
  const { clock } = deps
  return deps.stores.transaction((tx) => change(tx, (entry) => auditInUnit(tx, entry, clock.nowMs())))
}

/**
 * The audit writer of a unit of work: the row, and when the change ends a credential (REVOCATIONS,
 * src/domain/revocations/events.ts) its revocation event in the outbox, in the same unit.
 */
async function auditInUnit(tx: TransactionStores, entry: AuditEntry, atMs: number): Promise<void> {
  await writeAuditRow({ stores: tx }, entry, atMs)
  const event = revocationEventOf(entry, atMs)
  if (event) await tx.revocations.append(event)
}

/** A callback as the audit trail keeps it: `oob`, or only its origin (its query may carry the app's state). */
export function callbackOrigin(callback: string): string {
  if (callback === 'oob') return callback
  try {
    const url = new URL(callback)
    return `${url.protocol}//${url.host}`
  } catch {
    return 'unparsable'
  }
}
