import type { SignatureFailure } from '../../storage/records.ts'
import type { FailureBounds, SignatureFailureStore } from '../../storage/types.ts'
import type { Clock } from '../clock.ts'
import { maskedBaseString, maskedUrl, parameterSources } from '../masked-request.ts'
import { UNOBSERVED, type DomainObserver, type LostFailureReason, type RefusedSignedRequest } from '../observe.ts'

export type { SignatureFailure, SignatureFailureReason } from '../../storage/records.ts'

export const FAILURES_KEPT = 50
export const FAILURES_KEPT_MS = 24 * 60 * 60 * 1000
const BOUNDS: FailureBounds = { keep: FAILURES_KEPT, maxAgeMs: FAILURES_KEPT_MS }

/**
 * Writes handed over and not yet settled, at most: past it a failure is dropped rather than queued.
 * A flood of bad signatures for a known app (consumer keys are not secret) then holds at most this
 * many of PostgreSQL's pooled connections (10 per process) or transactions queued on SQLite's one
 * connection, so the requests that pass are not slowed by the diagnostics of those that fail, and no
 * memory grows; the per-address brake bounds such a flood first. A developer debugging a client
 * sends a failure now and then, far below it.
 */
export const MAX_PENDING_FAILURE_WRITES = 4

/** The recent signature failures of each app (at most FAILURES_KEPT, none older than FAILURES_KEPT_MS), shared by every instance. */
export interface SignatureFailureLog {
  /**
   * Hands the failure over to be written and returns at once: the refused request's 401 never waits
   * for the write. A failure dropped or whose write fails is not retried (the diagnostics are a
   * convenience); it is reported to `onLost`, which the server counts as a metric.
   */
  note(appId: string, failure: SignatureFailure): void
  /** Newest first. */
  recent(appId: string, nowMs: number): Promise<SignatureFailure[]>
  /** Resolves once every write handed over so far has settled (for tests and shutdown). */
  settled(): Promise<void>
  /** Failures dropped so far because MAX_PENDING_FAILURE_WRITES writes were pending. */
  dropped(): number
}

/** The log over its store (the database's table, so every instance writes and reads the same rows). */
export function createFailureLog(
  store: SignatureFailureStore,
  options: { maxPending?: number; onLost?: (reason: LostFailureReason) => void } = {},
): SignatureFailureLog {
  const maxPending = options.maxPending ?? MAX_PENDING_FAILURE_WRITES
  const onLost = options.onLost ?? (() => {})
  const pending = new Set<Promise<void>>()
  let dropped = 0
  return {
    note(appId, failure) {
      if (pending.size >= maxPending) {
        dropped += 1
        onLost('dropped')
        return
      }
      const write: Promise<void> = store.record(appId, failure, BOUNDS).then(
        () => void pending.delete(write),
        () => {
          pending.delete(write)
          onLost('write_failed')
        },
      )
      pending.add(write)
    },
    recent: (appId, nowMs) => store.recent(appId, nowMs, BOUNDS),
    async settled() {
      await Promise.all(pending)
    },
    dropped: () => dropped,
  }
}

/**
 * The observer with the failure log subscribed to the verifier's refusals (src/composition/root.ts):
 * a refused request is kept for its app's developer, off the request's path. It never changes the
 * answer the client gets, nor delays it by more than handing the write over. A failure of an unknown
 * key belongs to no app and is not kept: no developer could be shown it, and keeping it would let
 * anyone write rows by sending garbage keys (it is counted in
 * `latchkey_oauth1_verifications_total{result="unknown_consumer"}`).
 */
export function withFailureLog(observe: DomainObserver | undefined, log: SignatureFailureLog, clock: Clock): DomainObserver {
  return {
    ...(observe ?? UNOBSERVED),
    signedRequestRefused(refused) {
      observe?.signedRequestRefused?.(refused)
      if (refused.app) log.note(refused.app.id, failureOf(refused, clock))
    },
  }
}

function failureOf(refused: RefusedSignedRequest, clock: Clock): SignatureFailure {
  return {
    atMs: clock.nowMs(),
    method: refused.input.method,
    url: maskedUrl(refused.input),
    reason: refused.reason,
    ...(refused.reason === 'bad_signature' ? { baseString: maskedBaseString(refused.request.baseString) } : {}),
    parameters: parameterSources(refused.input),
  }
}
