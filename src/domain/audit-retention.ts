import { E } from '../errors/catalogue.ts'
import { assertThat } from '../errors/service-error.ts'
import { recordAudit } from './audit.ts'
import type { DomainDeps } from './deps.ts'

const DAY_MS = 86_400_000

/**
 * Deletes the audit rows written before beforeMs (`latchkey audit prune --before`, and the serve
 * process's retention sweep), and records that it did in an `audit.pruned` row of its own, so the
 * trail always says where it was cut. A time in the future is refused: it would delete everything.
 */
export async function pruneAuditTrail(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  beforeMs: number,
  via: 'cli' | 'retention',
): Promise<number> {
  assertThat(Number.isFinite(beforeMs) && beforeMs <= deps.clock.nowMs(), E.invalidParameter, { message: 'the time to prune before must not be in the future', field: 'before' })
  const deleted = await deps.stores.audit.deleteBefore(beforeMs)
  if (deleted > 0 || via === 'cli') await recordAudit(deps, { event: 'audit.pruned', detail: { before: new Date(beforeMs).toISOString(), deleted, via } })
  return deleted
}

/** The start of the retention window `retentionDays` back from now; undefined when rows are kept forever (0). */
export function retentionCutoffMs(deps: Pick<DomainDeps, 'clock'>, retentionDays: number): number | undefined {
  return retentionDays > 0 ? deps.clock.nowMs() - retentionDays * DAY_MS : undefined
}
