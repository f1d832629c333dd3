import { LRUCache } from 'lru-cache'
import type { AdmissionStore, Generation, GenerationValue, Stores, ValidityCacheResult } from './types.ts'
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
  /**
   * Where a request's admission reads the generation (confirmedByAdmissions): the answer at the
   * last generation known, without a read of its own; the admission says whether it is current.
   * Elsewhere, as `get`.
   */
  getConfirmedLater<T>(key: string, load: () => Promise<T>): Promise<T>
  /** A generation read elsewhere (by an admission): the cache is emptied when it moved. */
  learn(now: GenerationValue): void
  /** Whether `answer` (an object this cache answered) was filled at generation `now`. */
  isCurrent(answer: object, now: GenerationValue): boolean
}

export function createValidityCache(
  generation: Generation,
  options: {
    entries?: number
    onLookup?: ((result: ValidityCacheResult) => void) | undefined
    /** Where admissions read the generation (Redis): whether a move of this process is owed, when no answer may be kept. */
    confirmedByAdmissions?: { isOwed(): boolean } | undefined
  } = {},
): ValidityCache {
  const { entries = VALIDITY_CACHE_ENTRIES, onLookup, confirmedByAdmissions } = options
  const answers = new LRUCache<string, { value: unknown }>({ max: entries })
  /** The generation each kept answer was filled at (the answers are frozen: each keeps its own). */
  const filledAtOf = new WeakMap<object, GenerationValue>()
  let filledAt: GenerationValue | undefined
  const learn = (now: GenerationValue) => {
    if (now === filledAt) return
    answers.clear()
    filledAt = now
  }
  /**
   * The answer kept at generation `at`, or loaded. Kept under the generation known before it was
   * loaded: a write that commits meanwhile moves the generation after its commit, so the next
   * lookup empties the cache. Not kept when a lookup has already seen a newer generation: the
   * answer may be older than that one.
   */
  async function answerAt<T>(at: GenerationValue, key: string, load: () => Promise<T>): Promise<T> {
    const hit = answers.get(key)
    onLookup?.(hit ? 'hit' : 'miss')
    if (hit) return hit.value as T
    const value = await load()
    if (filledAt === at) {
      answers.set(key, { value: deepFreeze(value) })
      if (typeof value === 'object' && value !== null) filledAtOf.set(value, at)
    }
    return value
  }
  const bypass = <T>(load: () => Promise<T>) => {
    onLookup?.('bypass')
    return load()
  }
  const get = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    const now = generation()
    if (now === undefined) return bypass(load)
    if (typeof now !== 'object') {
      learn(now)
      return answerAt(now, key, load)
    }
    return now.then((read) => {
      learn(read)
      return answerAt(read, key, load)
    })
  }
  return {
    get,
    getConfirmedLater<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (!confirmedByAdmissions) return get(key, load)
      // Cold (no generation known yet), or a move owed: from the database; the admission decides.
      if (filledAt === undefined || confirmedByAdmissions.isOwed()) return bypass(load)
      return answerAt(filledAt, key, load)
    },
    learn,
    isCurrent: (answer, now) => filledAtOf.get(answer) === now,
  }
}

/** The lookups of a verified request (and of the pages' session check), each store's by name: STORE_METHODS' `cached`. */
const CACHED_LOOKUPS = methodsWith('cached')

/** The lookups whose answers the request's admission confirms (STORE_METHODS' `confirmedLater`). */
const CONFIRMED_LATER = methodsWith('confirmedLater')

/**
 * The stores with the lookups of CACHED_LOOKUPS answered through `cache`, and admissions that tell
 * the cache the generation they read and say whether the lookup they were given is current.
 */
export function withCachedLookups(stores: Stores, cache: ValidityCache): Stores {
  const cached = { ...stores, admissions: confirmingAdmissions(stores.admissions, cache) }
  for (const [name, methods] of Object.entries(CACHED_LOOKUPS) as Array<[StoreName, string[]]>) {
    const later = new Set(CONFIRMED_LATER[name] ?? [])
    ;(cached as Record<string, object>)[name] = withValidityCache(stores[name], name, methods as never, cache, later)
  }
  return cached
}

function confirmingAdmissions(admissions: AdmissionStore, cache: ValidityCache): AdmissionStore {
  return {
    async admit(request) {
      const admission = await admissions.admit(request)
      if (admission.generation === undefined) return admission
      cache.learn(admission.generation)
      const { lookedUp } = request
      return { ...admission, lookupIsCurrent: admission.lookupIsCurrent && (lookedUp === undefined || cache.isCurrent(lookedUp, admission.generation)) }
    },
  }
}

/**
 * The store with the named lookups answered through the cache, keyed by the store's name, the
 * method and its arguments (each prefixed by its length, so that no two argument lists share a key).
 */
export function withValidityCache<T extends object>(
  store: T,
  name: string,
  methods: ReadonlyArray<keyof T & string>,
  cache: ValidityCache,
  confirmedLater: ReadonlySet<string> = new Set(),
): T {
  const cached: Record<string, unknown> = { ...(store as Record<string, unknown>) }
  for (const method of methods) {
    const lookup = store[method] as (...args: string[]) => Promise<unknown>
    const answer = confirmedLater.has(method) ? cache.getConfirmedLater : cache.get
    cached[method] = (...args: string[]) => answer(keyOf(name, method, args), () => lookup.apply(store, args))
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
