import { pruneAuditTrail, retentionCutoffMs } from './audit-retention.ts'
import type { DomainDeps } from './deps.ts'

const MINUTE_MS = 60_000
const MINUTES_BETWEEN_AUDIT_PRUNES = 60

/**
 * How long an expired request token or OAuth 2.0 code is kept: until then the pages can still say
 * "expired", and a redeemed code presented again is still known as reused (which ends its grant).
 */
export const EXPIRED_KEPT_MS = 3_600_000

export interface Housekeeping {
  /** Resolves once every deletion started so far has settled. */
  settled(): Promise<void>
  /** Stops the timer and waits for the deletions in flight, so none runs on a closed database. */
  stop(): Promise<void>
}

export interface HousekeepingOptions {
  /** --audit-retention: audit rows older than this many days are deleted; 0 keeps every row. */
  auditRetentionDays: number
  /** A deletion that failed: it is tried again at its next turn. */
  onError(message: string, error: unknown): void
}

/**
 * The serve process's housekeeping, on a timer that does not keep the process alive. Every minute,
 * request tokens, OAuth 2.0 authorization codes and sign-ins elsewhere (an upstream provider's or
 * the platform's login page) expired for EXPIRED_KEPT_MS are deleted and the
 * counted hand-outs of a minute or more are written (hand-out-tally.ts); at
 * start and then every hour, the audit rows older than the retention. Every instance does it: each
 * deletion is idempotent.
 */
export function startHousekeeping(deps: Pick<DomainDeps, 'stores' | 'clock' | 'handOuts'>, options: HousekeepingOptions): Housekeeping {
  const pending = new Set<Promise<void>>()
  const run = (message: string, work: () => Promise<unknown>) => {
    const done: Promise<void> = work().then(
      () => void pending.delete(done),
      (error: unknown) => {
        pending.delete(done)
        options.onError(message, error)
      },
    )
    pending.add(done)
  }
  const pruneAudit = () => {
    const cutoffMs = retentionCutoffMs(deps, options.auditRetentionDays)
    if (cutoffMs !== undefined) run('could not delete audit rows past their retention', () => pruneAuditTrail(deps, cutoffMs, 'retention'))
  }
  const deleteExpired = () => {
    const beforeMs = deps.clock.nowMs() - EXPIRED_KEPT_MS
    run('could not delete expired request tokens', () => deps.stores.requestTokens.deleteExpired(beforeMs))
    run('could not delete expired authorization codes', () => deps.stores.oauth2Codes.deleteExpired(beforeMs))
    run('could not delete expired sign-ins elsewhere', () => deps.stores.externalSignIns.deleteExpired(beforeMs))
    run('could not write the counted bearer-token hand-outs', () => deps.handOuts.flush())
  }
  pruneAudit()
  let minutes = 0
  const timer = setInterval(() => {
    deleteExpired()
    minutes += 1
    if (minutes % MINUTES_BETWEEN_AUDIT_PRUNES === 0) pruneAudit()
  }, MINUTE_MS)
  timer.unref()
  const settled = async () => {
    await Promise.all(pending)
  }
  return {
    settled,
    async stop() {
      clearInterval(timer)
      await settled()
    },
  }
}
