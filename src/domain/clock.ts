/** The service's notion of now; tests pass a fixed or advancing clock. */
export interface Clock {
  nowMs(): number
}

export const systemClock: Clock = { nowMs: () => Date.now() }
