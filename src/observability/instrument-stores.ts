import type { Limiter, LimiterFactory, Storage, TransactionStores } from '../storage/types.ts'
import type { StorageBackend } from './metrics.ts'
import { STORE_NAMES, UNIT_STORE_NAMES, backendOf } from '../storage/store-methods.ts'

/**
 * The measure of one storage operation: runs a call of it, measuring it (a histogram observation,
 * and a span when tracing is on). `operation` is `store.method` (e.g. apps.findByConsumerKey): a
 * fixed set, never a value. Asked once per operation, when its store is wrapped, so that a call
 * finds nothing by name.
 */
export type StorageInstrument = (backend: StorageBackend, operation: string) => <T>(call: () => Promise<T>) => Promise<T>

export interface StoreBackends {
  database: 'sqlite' | 'postgres'
  /** Where nonces and limits live: Redis, or the process's memory (not measured: no I/O). */
  shared: 'redis' | 'memory'
}

/**
 * The same storage, every store call (and every limiter call) going through `instrument`. The
 * stores are plain objects of methods, so each is wrapped method by method; a unit of work's
 * stores are wrapped as it starts.
 */
export function instrumentStorage({ stores, runtime }: Storage, backends: StoreBackends, instrument: StorageInstrument): Storage {
  const database = backends.database
  const wrapped = { ...stores }
  for (const name of STORE_NAMES) {
    if (backendOf(name) === 'database') (wrapped as Record<string, object>)[name] = wrapStore(stores[name], name, database, instrument)
  }
  const measureTransaction = instrument(database, 'transaction')
  wrapped.transaction = (work) => measureTransaction(() => stores.transaction((tx) => work(wrapUnitStores(tx, database, instrument))))
  if (backends.shared !== 'redis') return { stores: wrapped, runtime }
  // entryCount answers at once (undefined in Redis): only the methods that go to Redis are timed.
  wrapped.nonces = { ...wrapStore(stores.nonces, 'nonces', 'redis', instrument), entryCount: (nowMs) => stores.nonces.entryCount(nowMs) }
  wrapped.admissions = wrapStore(stores.admissions, 'admissions', 'redis', instrument)
  return { stores: wrapped, runtime: { ...runtime, limiters: wrapLimiters(runtime.limiters, instrument) } }
}

function wrapUnitStores(tx: TransactionStores, backend: StorageBackend, instrument: StorageInstrument): TransactionStores {
  const wrapped = {} as Record<string, object>
  for (const name of UNIT_STORE_NAMES) wrapped[name] = wrapStore(tx[name], name, backend, instrument)
  return wrapped as unknown as TransactionStores
}

function wrapLimiters(factory: LimiterFactory, instrument: StorageInstrument): LimiterFactory {
  return {
    ...factory,
    create: (name, limit, windowSeconds) => wrapStore<Limiter>(factory.create(name, limit, windowSeconds), 'limiter', 'redis', instrument),
  }
}

/** Each method of `store` (all of them return promises) measured as `name.method`. */
function wrapStore<S extends object>(store: S, name: string, backend: StorageBackend, instrument: StorageInstrument): S {
  const wrapped: Record<string, unknown> = { ...(store as Record<string, unknown>) }
  for (const [method, value] of Object.entries(store)) {
    if (typeof value !== 'function') continue
    const measure = instrument(backend, `${name}.${method}`)
    wrapped[method] = (...args: unknown[]) => measure(() => (value as (...a: unknown[]) => Promise<unknown>).apply(store, args))
  }
  return wrapped as S
}
