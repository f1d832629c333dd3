import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Resolves once a timestamp taken now (whole seconds, rounded down) is no earlier than epochMs: at
 * the first whole second at or after it. A nonce store opens this way, so that clients with correct
 * clocks never meet its epoch; only requests signed before it (in the second of a restart at the
 * latest) are refused.
 */
export async function waitUntilSecondAfter(epochMs: number): Promise<void> {
  const readyAtMs = Math.ceil(epochMs / 1000) * 1000
  // A timer runs on the monotonic clock and may fire a millisecond before Date.now() reaches its
  // end: wait again until the wall clock says so.
  for (let waitMs = readyAtMs - Date.now(); waitMs > 0; waitMs = readyAtMs - Date.now()) await sleep(waitMs)
}
