import type { Stores, TransactionStores } from './types.ts'

/** Whether a store method writes a table the validity cache's lookups read (it then moves the generation). */
type Effect = 'moves' | 'keeps'
type EveryMethod<T> = { readonly [K in keyof T]: Effect }

/**
 * Every method of the stores that write the tables the cached lookups read (users, apps, access and
 * bearer tokens, previous consumer keys, OAuth 2.0 grants and tokens: the tables of SQLite's
 * triggers, migration 017), and whether it does. A method added to one of these stores does not
 * compile until it is named here. The other stores write none of those tables.
 */
export const CREDENTIAL_WRITES = {
  users: { create: 'moves', update: 'moves', findById: 'keeps', findByScreenName: 'keeps', list: 'keeps' },
  apps: { create: 'moves', update: 'moves', rotateKeys: 'moves', delete: 'moves', findById: 'keeps', findByConsumerKey: 'keeps', list: 'keeps' },
  accessTokens: { issueOrReuse: 'moves', revoke: 'moves', revokeAuthorization: 'moves', findByToken: 'keeps', findLive: 'keeps' },
  bearerTokens: { issueOrReuse: 'moves', revoke: 'moves', findByToken: 'keeps', findLive: 'keeps' },
  oauth2Grants: { create: 'moves', rotate: 'moves', revoke: 'moves', revokeAll: 'moves', findToken: 'keeps', listLive: 'keeps' },
  // Ending every session of a person raises their session generation (a column of users).
  sessions: {
    endAll: 'moves',
    create: 'keeps',
    findById: 'keeps',
    touch: 'keeps',
    confirmPassword: 'keeps',
    end: 'keeps',
    endOthers: 'keeps',
    listOpen: 'keeps',
    markReveal: 'keeps',
    takeReveal: 'keeps',
    deleteDead: 'keeps',
  },
} as const satisfies { [S in keyof Stores]?: EveryMethod<Stores[S]> }

type WritingStore = keyof typeof CREDENTIAL_WRITES

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
    ;(moving as Record<string, object>)[name] = afterWrites(stores[name], CREDENTIAL_WRITES[name], move)
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
    if (name in tx) (marking as Record<string, object>)[name] = beforeWrites(tx[name as keyof TransactionStores], CREDENTIAL_WRITES[name], marked)
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
