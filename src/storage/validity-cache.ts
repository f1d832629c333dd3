import { LRUCache } from 'lru-cache'
import type { Generation, GenerationValue, Stores, ValidityCacheResult } from './types.ts'
import { methodsWith, type StoreName } from './store-methods.ts'

/**
 * How many lookups the validity cache keeps: the credentials of the apps and people calling now.
 * A flood of unknown keys only evicts entries (each costs one statement again), never memory.
 */
export const VALIDITY_CACHE_ENTRIES = 10_000

/**
 * Answers of lookups (known or not: an unknown key is remembered as unknown) kept in process, each
 * used only after a check, on every call, that the generation is the one it was filled at: any
 * write since empties the cache, so no credential outlives its invalidation, rotation, suspension,
 * deletion or revocation by a single request. What depends on time (expiry, a key's grace) is
 * decided by the caller on every request from the cached record. Answers are frozen: every request
 * shares them.
 */
export interface ValidityCache {
  get<T>(key: string, load: () => Promise<T>): Promise<T>
}

export function createValidityCache(
  generation: Generation,
  options: { entries?: number; onLookup?: ((result: ValidityCacheResult) => void) | undefined } = {},
): ValidityCache {
  const { entries = VALIDITY_CACHE_ENTRIES, onLookup } = options
  const answers = new LRUCache<string, { value: unknown }>({ max: entries })
  let filledAt: GenerationValue | undefined
  /** The answer at generation `now`: the cache is emptied first when the generation moved. */
  async function answerAt<T>(now: GenerationValue, key: string, load: () => Promise<T>): Promise<T> {
    if (now !== filledAt) {
      answers.clear()
      filledAt = now
    }
    const hit = answers.get(key)
    onLookup?.(hit ? 'hit' : 'miss')
    if (hit) return hit.value as T
    const value = await load()
    // Kept under the generation read before it was loaded: a write that commits meanwhile moves the
    // generation after its commit, so the next lookup empties the cache. Not kept when a lookup
    // has already seen a newer generation: the answer may be older than that one.
    if (filledAt === now) answers.set(key, { value: deepFreeze(value) })
    return value
  }
  return {
    get<T>(key: string, load: () => Promise<T>): Promise<T> {
      const now = generation()
      if (now === undefined) {
        onLookup?.('bypass')
        return load()
      }
      return typeof now === 'object' ? now.then((read) => answerAt(read, key, load)) : answerAt(now, key, load)
    },
  }
}

/** The lookups of a verified request (and of the pages' session check), each store's by name: STORE_METHODS' `cached`. */
const CACHED_LOOKUPS = methodsWith('cached')

/** The stores with the lookups of CACHED_LOOKUPS answered through `cache`. */
export function withCachedLookups(stores: Stores, cache: ValidityCache): Stores {
  const cached = { ...stores }
  for (const [name, methods] of Object.entries(CACHED_LOOKUPS) as Array<[StoreName, string[]]>) {
    ;(cached as Record<string, object>)[name] = withValidityCache(stores[name], name, methods as never, cache)
  }
  return cached
}

/**
 * The store with the named lookups answered through the cache, keyed by the store's name, the
 * method and its arguments (each prefixed by its length, so that no two argument lists share a key).
 */
export function withValidityCache<T extends object>(store: T, name: string, methods: ReadonlyArray<keyof T & string>, cache: ValidityCache): T {
  const cached: Record<string, unknown> = { ...(store as Record<string, unknown>) }
  for (const method of methods) {
    const lookup = store[method] as (...args: string[]) => Promise<unknown>
    cached[method] = (...args: string[]) => cache.get(keyOf(name, method, args), () => lookup.apply(store, args))
  }
  return cached as T
}

function keyOf(name: string, method: string, args: readonly string[]): string {
  let key = `${name}.${method}`
  for (const arg of args) key += `\u0000${arg.length}:${arg}`
  return key
}

function deepFreeze<T>(value: T): T {
  // Anything not an object (null too) counts as frozen.
  if (Object.isFrozen(value)) return value
  // Fields only: a field read through a getter (a sealed key, opened when first read: sql/rows.ts)
  // is not read here, and returns a string.
  for (const field of Object.values(Object.getOwnPropertyDescriptors(value))) if ('value' in field) deepFreeze(field.value)
  return Object.freeze(value)
}
