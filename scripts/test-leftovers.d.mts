// Types of scripts/test-leftovers.mjs, for the tests that import it.
export const DEAD_OWNER_MS: number
export const UNOWNED_MS: number
export const ANY_MS: number
export function leftoverOwner(name: string): { createdAtMs: number; pid: number | undefined } | undefined
export function isRunning(pid: number): boolean
export interface StaleOptions {
  nowMs?: number
  running?: (pid: number) => boolean
}
export function isStaleLeftover(name: string, options?: StaleOptions): boolean
export function removeStaleLeftovers(databaseUrl: string, redisUrl: string, options?: StaleOptions): Promise<{ schemas: string[]; redisKeys: number }>
