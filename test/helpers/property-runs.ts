/**
 * How many cases fast-check tries for a property: `n`, or a share of it when
 * LATCHKEY_PROPERTY_RUNS_SCALE is set (mutation testing runs the tests once per mutant and sets
 * it to a small fraction; npm test leaves it unset).
 */
export function propertyRuns(n: number): number {
  const scale = Number(process.env.LATCHKEY_PROPERTY_RUNS_SCALE ?? '1')
  return Number.isFinite(scale) && scale > 0 ? Math.max(20, Math.round(n * scale)) : n
}
