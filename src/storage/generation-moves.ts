import type { Stores, TransactionStores } from './types.ts'
import { STORE_METHODS, methodsWith, type MethodTraits, type StoreName } from './store-methods.ts'

/** Whether a store method writes a table the validity cache's lookups read (it then moves the generation). */
type Effect = 'moves' | 'keeps'

/**
 * Every method of the stores that write the tables the cached lookups read, and whether it does:
 * STORE_METHODS' `moves`. The other stores write none of those tables.
 */
export const CREDENTIAL_WRITES: Readonly<Partial<Record<StoreName, Readonly<Record<string, Effect>>>>> = Object.fromEntries(
  Object.keys(methodsWith('moves')).map((store) => [
    store,
    Object.fromEntries(Object.entries(STORE_METHODS[store as StoreName] as Record<string, MethodTraits>).map(([method, traits]) => [method, traits.moves ? 'moves' : 'keeps'])),
  ]),
)

type WritingStore = StoreName

/**
 * The stores with the generation moved after every write of a credential table, whatever its
 * outcome (a write that failed while committing may have committed): outside a unit, after the
 * write; inside one, after the unit, when any of its calls wrote such a table. A move that fails
 * fails a write that succeeded (503): it is not answered as done while another instance may still
 * accept what it ended. A write that failed keeps its own error (a name taken stays a name taken):
 * it is not answered as done either, and the failed move is owed (redis/generation.ts).
 */
export function withGenerationMoves(stores: Stores, move: () => Promise<void>): Stores {
  const moving = { ...stores }
  for (const name of Object.keys(CREDENTIAL_WRITES) as WritingStore[]) {
    ;(moving as Record<string, object>)[name] = afterWrites(stores[name], CREDENTIAL_WRITES[name]!, move)
  }
  moving.transaction = async (work) => {
    let wrote = false
    const marked = () => {
      wrote = true
    }
    return thenMove(
      () => stores.transaction((tx) => work(markingWrites(tx, marked))),
      () => (wrote ? move() : Promise.resolve()),
    )
  }
  return moving
}

/** A unit's stores, each credential write calling `marked` before it runs. */
function markingWrites(tx: TransactionStores, marked: () => void): TransactionStores {
  const marking = { ...tx }
  for (const name of Object.keys(CREDENTIAL_WRITES) as WritingStore[]) {
    if (name in tx) (marking as Record<string, object>)[name] = beforeWrites(tx[name as keyof TransactionStores], CREDENTIAL_WRITES[name]!, marked)
  }
  return marking
}

function afterWrites<T extends object>(store: T, effects: Readonly<Record<string, Effect>>, move: () => Promise<void>): T {
  return withWrites(store, effects, (write) => (...args) => thenMove(() => write(...args), move))
}

/** `write`, then `move` whatever its outcome; the write's own error wins over the move's. */
async function thenMove<T>(write: () => Promise<T>, move: () => Promise<void>): Promise<T> {
  let result: T
  try {
    result = await write()
  } catch (error) {
    await move().catch(() => {})
    throw error
  }
  await move()
  return result
}

function beforeWrites<T extends object>(store: T, effects: Readonly<Record<string, Effect>>, marked: () => void): T {
  return withWrites(store, effects, (write) => (...args) => {
    marked()
    return write(...args)
  })
}

type Method = (...args: unknown[]) => Promise<unknown>

/** The store with each method that `moves` replaced by `wrap(method)`. */
function withWrites<T extends object>(store: T, effects: Readonly<Record<string, Effect>>, wrap: (write: Method) => Method): T {
  const wrapped: Record<string, unknown> = { ...(store as Record<string, unknown>) }
  for (const [method, effect] of Object.entries(effects)) {
    if (effect === 'moves') wrapped[method] = wrap((store as Record<string, Method>)[method]!.bind(store))
  }
  return wrapped as T
}
