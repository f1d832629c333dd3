import type { DomainObserver } from '../domain/observe.ts'
import {
  STORE_NAMES,
  backendOf,
  createValidityCache,
  guardStore,
  outsideUnitsOnly,
  toStorageError,
  withCachedLookups,
  withGenerationMoves,
  type Storage,
  type StoreName,
  type Stores,
} from '../storage/index.ts'

/** What a layer may be given: the process's observability, when it has some. */
export interface LayerOptions {
  /** The storage metrics (src/observability/instrument-stores.ts): every store and limiter call timed. */
  instrument?: ((storage: Storage) => Storage) | undefined
  /** Told how the validity cache answered each lookup. */
  observe?: DomainObserver | undefined
  /** False: no validity cache, every lookup answered by the stores themselves (the storage contract's tests). */
  cached?: boolean | undefined
}

interface StoreLayer {
  name: string
  apply(storage: Storage, options: LayerOptions): Storage
}

/**
 * What a store call passes through, innermost (next to the adapter that openStorage built) first.
 * Each layer wraps the outer stores and, where it must, a unit of work's (through `transaction`);
 * which methods a layer touches is read from STORE_METHODS (src/storage/store-methods.ts). Applied
 * once, by layeredStorage; nothing else wraps a store. Above these, a request of the admin API or
 * the console names who acts in its audit rows (withAuditActor, src/domain/actor.ts): a value of
 * the request, not of the process.
 */
export const STORE_LAYERS: readonly StoreLayer[] = [
  {
    // On SQLite a call to the outer stores inside a unit would wait for the unit's own connection.
    name: 'outside units only',
    apply: (storage) => ({ ...storage, stores: eachDatabaseStore(storage.stores, (store, name) => outsideUnitsOnly(store, `stores.${name}`)) }),
  },
  {
    // An outage of the database is StorageUnavailableError (503 code 130) from the call that met it.
    name: 'storage errors',
    apply: ({ stores, runtime }) => ({
      runtime,
      stores: {
        ...eachDatabaseStore(stores, (store) => guardStore(store, 'database')),
        transaction: (work) => stores.transaction(work).catch((error: unknown) => Promise.reject(toStorageError(error, 'database'))),
      },
    }),
  },
  {
    // PostgreSQL with Redis: the generation the validity caches of every instance check moves after each credential write.
    name: 'generation moves',
    apply: (storage) => (storage.runtime.moveGeneration ? { ...storage, stores: withGenerationMoves(storage.stores, storage.runtime.moveGeneration) } : storage),
  },
  {
    // Outside the moves, inside the cache: the metrics time the database and the moves, not the cache.
    name: 'storage metrics',
    apply: (storage, { instrument }) => (instrument ? instrument(storage) : storage),
  },
  {
    name: 'validity cache',
    apply: (storage, { observe, cached = true }) => {
      const { generation, generationReadByAdmissions } = storage.runtime
      if (!generation || !cached) return storage
      const cache = createValidityCache(generation, {
        onLookup: observe && ((result) => observe.validityCacheLookup(result)),
        confirmedByAdmissions: generationReadByAdmissions,
      })
      return { ...storage, stores: withCachedLookups(storage.stores, cache) }
    },
  },
]

/** The storage with every layer of STORE_LAYERS applied, in order. */
export function layeredStorage(storage: Storage, options: LayerOptions = {}): Storage {
  return STORE_LAYERS.reduce((inner, layer) => layer.apply(inner, options), storage)
}

/** The stores with each of the database's (STORE_METHODS' backends) replaced by `wrap(store)`. */
function eachDatabaseStore(stores: Stores, wrap: <T extends object>(store: T, name: StoreName) => T): Stores {
  const wrapped = { ...stores }
  for (const name of STORE_NAMES) {
    if (backendOf(name) === 'database') (wrapped as Record<string, object>)[name] = wrap(stores[name], name)
  }
  return wrapped
}
