import type { AppRecord } from '../storage/records.ts'
import type { AppByConsumerKey } from '../storage/types.ts'

/**
 * The app a consumer key names at nowMs: found by its current key, or by a rotated-out key whose
 * grace period has not ended (rotateAppKeys). Decided here, on every request, not by the lookup:
 * its answer may come from the validity cache, filled before the grace ended.
 */
export function appIfKeyWorks(found: AppByConsumerKey | undefined, nowMs: number): AppRecord | undefined {
  return found !== undefined && (found.previousKeyExpiresAtMs === undefined || found.previousKeyExpiresAtMs > nowMs) ? found : undefined
}
