import type { Limiter, LimiterFactory, Stores, TransactionStores } from '../storage/types.ts'
import type { StorageBackend } from './metrics.ts'

/**
 * Runs one storage call, measuring it (a histogram observation, and a span when tracing is on).
 * `operation` is `store.method` (e.g. apps.findByConsumerKey): a fixed set, never a value.
 */
export type StorageInstrument = <T>(backend: StorageBackend, operation: string, call: () => Promise<T>) => Promise<T>

export interface StoreBackends {
  database: 'sqlite' | 'postgres'
  /** Where nonces and limits live: Redis, or the process's memory (not measured: no I/O). */
  shared: 'redis' | 'memory'
}

const DATABASE_STORES = ['users', 'apps', 'requestTokens', 'accessTokens', 'bearerTokens', 'audit'] as const

/**
 * The same stores, every call going through `instrument`. The stores are plain objects of methods,
 * so each is wrapped method by method; a unit of work's stores are wrapped as it starts.
 */
export function instrumentStores(stores: Stores, backends: StoreBackends, instrument: StorageInstrument): Stores {
  const wrapped: Stores = { ...stores }
  for (const name of DATABASE_STORES) (wrapped as unknown as Record<string, object>)[name] = wrapStore(stores[name], name, backends.database, instrument)
  wrapped.transaction = (work) =>
    instrument(backends.database, 'transaction', () => stores.transaction((tx) => work(wrapTransactionStores(tx, backends.database, instrument))))
  if (backends.shared === 'redis') {
    wrapped.nonces = wrapStore(stores.nonces, 'nonces', 'redis', instrument)
    wrapped.limiters = wrapLimiters(stores.limiters, instrument)
  }
  return wrapped
}

function wrapTransactionStores(tx: TransactionStores, backend: StorageBackend, instrument: StorageInstrument): TransactionStores {
  return {
    users: wrapStore(tx.users, 'users', backend, instrument),
    requestTokens: wrapStore(tx.requestTokens, 'requestTokens', backend, instrument),
    accessTokens: wrapStore(tx.accessTokens, 'accessTokens', backend, instrument),
    bearerTokens: wrapStore(tx.bearerTokens, 'bearerTokens', backend, instrument),
    audit: wrapStore(tx.audit, 'audit', backend, instrument),
  }
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
    const operation = `${name}.${method}`
    wrapped[method] = (...args: unknown[]) => instrument(backend, operation, () => (value as (...a: unknown[]) => Promise<unknown>).apply(store, args))
  }
  return wrapped as S
}
