/** The service's notion of now; tests pass a fixed or advancing clock. */
export interface Clock {
  nowMs(): number
}

export const systemClock: Clock = { nowMs: () => Date.now() }

/**
 * The test mode's clock (`serve --test`): the system's, moved by what the test suite asks. It never
 * goes back before the moment it was made, where the nonce store's memory begins.
 */
export interface TestClock extends Clock {
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void
  /** Puts the clock at `ms` (not before the moment it was made); answers false when refused. */
  set(ms: number): boolean
  /** How far the clock is ahead of the system's. */
  offsetMs(): number
}

export function createTestClock(system: Clock = systemClock): TestClock {
  const startedMs = system.nowMs()
  let offsetMs = 0
  return {
    nowMs: () => system.nowMs() + offsetMs,
    advance(ms) {
      offsetMs += Math.max(0, ms)
    },
    set(ms) {
      if (ms < startedMs) return false
      offsetMs = ms - system.nowMs()
      return true
    },
    offsetMs: () => offsetMs,
  }
}
