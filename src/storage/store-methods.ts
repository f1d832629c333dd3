import type { Stores, TransactionStores } from './types.ts'

/** What one store method is to the layers around the stores (src/composition/store-layers.ts). */
export interface MethodTraits {
  /** Its answer is kept by the validity cache (a lookup every verified request makes). */
  readonly cached?: true
  /**
   * It writes a table the cached lookups read (the tables of SQLite's generation triggers, migration
   * 017): where the generation is kept in Redis, it moves after the call (generation-moves.ts).
   */
  readonly moves?: true
  /** A unit of work's stores have it (Stores.transaction): it may run inside one. */
  readonly inUnit?: true
  /**
   * Cached, and every caller has the request's admission confirm the answer (AdmissionStore:
   * `lookedUp`): where admissions read the generation (Redis), it is answered at the last
   * generation known, without a read of its own.
   */
  readonly confirmedLater?: true
}

export type StoreName = Exclude<keyof Stores, 'transaction'>

/** Which database the store's calls reach: the SQL database, or where nonces live (Redis or memory). */
export type StoreBackend = 'database' | 'shared'

const CONFIRMED_LATER = { cached: true, confirmedLater: true } as const
const IN_UNIT = { inUnit: true } as const
const LOOKUP_IN_UNIT = { cached: true, inUnit: true } as const
const WRITE_IN_UNIT = { moves: true, inUnit: true } as const
const OUTSIDE_UNITS = {} as const

/**
 * Every method of every store, and what it is. A method added to a store does not compile until it
 * is here; the validity cache's lookups, the generation's moves, the units of work's stores and the
 * storage metrics' names are all read from this table.
 */
export const STORE_METHODS = {
  users: { create: WRITE_IN_UNIT, update: WRITE_IN_UNIT, findById: LOOKUP_IN_UNIT, findByScreenName: IN_UNIT, findByEmail: IN_UNIT, list: IN_UNIT },
  apps: {
    create: WRITE_IN_UNIT,
    update: WRITE_IN_UNIT,
    rotateKeys: WRITE_IN_UNIT,
    delete: WRITE_IN_UNIT,
    findById: LOOKUP_IN_UNIT,
    findByConsumerKey: LOOKUP_IN_UNIT,
    list: IN_UNIT,
  },
  requestTokens: { create: IN_UNIT, findByToken: IN_UNIT, authorize: IN_UNIT, deny: IN_UNIT, redeemVerifier: IN_UNIT, deleteExpired: IN_UNIT },
  accessTokens: { issueOrReuse: WRITE_IN_UNIT, revoke: WRITE_IN_UNIT, revokeAuthorization: WRITE_IN_UNIT, findByToken: IN_UNIT, findLive: IN_UNIT },
  // findLive: every repeat of POST /oauth2/token asks it.
  bearerTokens: { issueOrReuse: WRITE_IN_UNIT, revoke: WRITE_IN_UNIT, findByToken: IN_UNIT, findLive: LOOKUP_IN_UNIT },
  audit: { record: IN_UNIT, list: IN_UNIT, deleteBefore: IN_UNIT },
  credentials: { findConsumerWithAccessToken: CONFIRMED_LATER, findBearerTokenWithApp: CONFIRMED_LATER },
  // Ending every session of a person raises their session generation (a column of users).
  sessions: {
    endAll: { moves: true },
    create: OUTSIDE_UNITS,
    findById: OUTSIDE_UNITS,
    touch: OUTSIDE_UNITS,
    confirmPassword: OUTSIDE_UNITS,
    end: OUTSIDE_UNITS,
    endOthers: OUTSIDE_UNITS,
    listOpen: OUTSIDE_UNITS,
    markReveal: OUTSIDE_UNITS,
    takeReveal: OUTSIDE_UNITS,
    deleteDead: OUTSIDE_UNITS,
  },
  nonces: { remember: OUTSIDE_UNITS, settleEpoch: OUTSIDE_UNITS, entryCount: OUTSIDE_UNITS },
  admissions: { admit: OUTSIDE_UNITS },
  adminTokens: { create: IN_UNIT, findByToken: IN_UNIT, list: IN_UNIT, revoke: IN_UNIT },
  signInUnlocks: { record: IN_UNIT, latest: IN_UNIT },
  listings: { usersPage: OUTSIDE_UNITS, appsPage: OUTSIDE_UNITS, auditPage: OUTSIDE_UNITS, authorizations: OUTSIDE_UNITS },
  signatureFailures: { record: OUTSIDE_UNITS, recent: OUTSIDE_UNITS },
  oauth2Clients: { findByAppId: IN_UNIT, findByClientId: IN_UNIT, findByAppIds: IN_UNIT, save: IN_UNIT, delete: IN_UNIT },
  oauth2Codes: { create: IN_UNIT, redeem: IN_UNIT, deleteExpired: IN_UNIT },
  oauth2Grants: { create: WRITE_IN_UNIT, rotate: WRITE_IN_UNIT, revoke: WRITE_IN_UNIT, revokeAll: WRITE_IN_UNIT, findToken: LOOKUP_IN_UNIT, listLive: IN_UNIT },
  // The outbox is written in the unit of the change that ended a credential (src/domain/audit.ts).
  revocations: { append: IN_UNIT },
  // An operator's changes go in a unit with their audit row; the delivery loop's calls do not.
  webhooks: {
    add: IN_UNIT,
    find: OUTSIDE_UNITS,
    markVerified: IN_UNIT,
    list: OUTSIDE_UNITS,
    remove: IN_UNIT,
    claimLease: OUTSIDE_UNITS,
    releaseLease: OUTSIDE_UNITS,
    fanOut: OUTSIDE_UNITS,
    due: OUTSIDE_UNITS,
    delivered: OUTSIDE_UNITS,
    attemptFailed: OUTSIDE_UNITS,
    replay: IN_UNIT,
    prune: OUTSIDE_UNITS,
  },
  // A link is made in the unit that creates its person; unlinking is audited with it.
  identityLinks: { create: IN_UNIT, find: IN_UNIT, listForUser: IN_UNIT, touch: OUTSIDE_UNITS, remove: IN_UNIT },
  externalSignIns: { create: OUTSIDE_UNITS, find: OUTSIDE_UNITS, settle: OUTSIDE_UNITS, consume: OUTSIDE_UNITS, deleteExpired: OUTSIDE_UNITS },
} as const satisfies { readonly [S in StoreName]: { readonly [M in keyof Stores[S]]-?: MethodTraits } }

type Table = typeof STORE_METHODS

/** Each store's backend: every store is the database's but the nonces. */
export const backendOf = (store: StoreName): StoreBackend => (store === 'nonces' || store === 'admissions' ? 'shared' : 'database')

/** The stores that have a method with this trait. */
type StoresWith<Trait extends keyof MethodTraits> = { [S in StoreName]: { [M in keyof Table[S]]: Table[S][M] extends Record<Trait, true> ? S : never }[keyof Table[S]] }[StoreName]

/** The table's unit stores are exactly TransactionStores' (types.ts): neither compiles without the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const unitStoresAgree: Same<StoresWith<'inUnit'>, keyof TransactionStores> = true
void unitStoresAgree

export const STORE_NAMES = Object.keys(STORE_METHODS) as StoreName[]

/** For each store with such methods, the names of those with `trait`. */
export function methodsWith(trait: keyof MethodTraits): Partial<Record<StoreName, string[]>> {
  const found: Partial<Record<StoreName, string[]>> = {}
  for (const store of STORE_NAMES) {
    const methods = Object.entries(STORE_METHODS[store] as Record<string, MethodTraits>)
      .filter(([, traits]) => traits[trait] === true)
      .map(([method]) => method)
    if (methods.length > 0) found[store] = methods
  }
  return found
}

/** The stores a unit of work has (TransactionStores). */
export const UNIT_STORE_NAMES = Object.keys(methodsWith('inUnit')) as Array<keyof TransactionStores>
