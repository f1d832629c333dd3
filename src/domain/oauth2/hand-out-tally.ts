import type { AuditStore } from '../../storage/types.ts'
import type { Clock } from '../clock.ts'
import { recordAudit } from '../audit.ts'

/** How long repeats are counted before their row is written. */
export const TALLY_MS = 60_000

/**
 * The repeats of `POST /oauth2/token` that hand out an app's existing bearer token, counted in
 * memory and written as one `bearer_token.issued` row per app per minute (`reused: true`, `count`),
 * so that a repeated hand-out writes nothing per call. Each process counts its own; their rows add
 * up to every repeat. What is counted is written at the latest a minute later (at the app's next
 * repeat, by the housekeeping's minute, or when the process stops); a write that fails is counted
 * again into the next one.
 */
export interface HandOutTally {
  /** One repeat for the app, from this address (the row keeps the last one). */
  count(appId: string, address: string | null): void
  /** Writes the rows of the apps counted for a minute or more (all of them with `all`). */
  flush(options?: { all?: boolean }): Promise<void>
}

interface Bucket {
  count: number
  address: string | null
  sinceMs: number
}

export function createHandOutTally(deps: { stores: { audit: AuditStore }; clock: Clock }): HandOutTally {
  const buckets = new Map<string, Bucket>()
  const writes = new Set<Promise<void>>()

  function write(appId: string, bucket: Bucket): void {
    buckets.delete(appId)
    const entry = { event: 'bearer_token.issued', appId, address: bucket.address, detail: { reused: true, count: bucket.count } } as const
    const done: Promise<void> = recordAudit(deps, entry).then(
      () => void writes.delete(done),
      () => {
        writes.delete(done)
        // Counted again, into the app's next row: no repeat is lost to a failed write.
        const next = buckets.get(appId)
        buckets.set(appId, next ? { ...next, count: next.count + bucket.count, sinceMs: bucket.sinceMs } : bucket)
      },
    )
    writes.add(done)
  }

  return {
    count(appId, address) {
      const nowMs = deps.clock.nowMs()
      const bucket = buckets.get(appId)
      if (!bucket) {
        buckets.set(appId, { count: 1, address, sinceMs: nowMs })
        return
      }
      bucket.count += 1
      bucket.address = address
      if (nowMs - bucket.sinceMs >= TALLY_MS) write(appId, bucket)
    },
    async flush(options = {}) {
      const nowMs = deps.clock.nowMs()
      for (const [appId, bucket] of [...buckets]) if (options.all || nowMs - bucket.sinceMs >= TALLY_MS) write(appId, bucket)
      await Promise.all(writes)
    },
  }
}
