// On PostgreSQL with Redis the credentials' generation is moved by the store methods that
// CREDENTIAL_WRITES (src/storage/generation-moves.ts) names; on SQLite the database's triggers move
// it by table. The store contracts (and the units of work's) run here on SQLite with every store
// call watched: each method the triggers show writing a credential table must be one the list says
// moves (a store it does not name moves it in none), each the list says moves must be seen doing
// so, and each method must be seen running alone at least once.
import assert from 'node:assert/strict'
import { after, describe } from 'node:test'
import { CREDENTIAL_WRITES } from '../../../src/storage/generation-moves.ts'
import type { Generation, Stores } from '../../../src/storage/types.ts'
import { adminContract } from '../admin-contract.ts'
import { storeContract, type OpenFreshStores } from '../contract.ts'
import { oauth2Contract } from '../oauth2-contract.ts'
import { transactionContract } from '../transaction-contract.ts'
import { openFreshSqlite } from './open-fresh.ts'

/** For each watched method, whether it was seen moving the generation (absent: never seen alone). */
const seen = new Map<string, boolean>()

/** Every store's methods, as CREDENTIAL_WRITES says them; a store it does not name keeps the generation in all. */
function saidEffects(stores: Stores): Array<[string, string]> {
  return Object.entries(stores)
    .filter(([name, store]) => name !== 'nonces' && typeof store === 'object')
    .flatMap(([name, store]) => {
      const said = (CREDENTIAL_WRITES as Record<string, Record<string, string>>)[name] ?? {}
      return Object.keys(store as object).map((method): [string, string] => [`${name}.${method}`, said[method] ?? 'keeps'])
    })
}

/** The stores (but the nonces) with each method watched when it runs alone (no other call on them in flight). */
function watched(stores: Stores, generation: Generation): Stores {
  let running = 0
  let started = 0
  const watching: Record<string, unknown> = { ...stores }
  for (const [name, store] of Object.entries(stores) as Array<[string, Record<string, (...args: unknown[]) => Promise<unknown>>]>) {
    if (name === 'nonces' || typeof store !== 'object') continue
    const wrapped: Record<string, unknown> = { ...store }
    for (const method of Object.keys(store)) {
      wrapped[method] = async (...args: unknown[]) => {
        const mine = ++started
        const alone = running++ === 0
        const before = generation()
        try {
          return await store[method]!(...args)
        } finally {
          running--
          const afterwards = generation()
          // Seen only when no other watched call started meanwhile, and the database could tell.
          if (alone && started === mine && before !== undefined && afterwards !== undefined) {
            const key = `${name}.${method}`
            seen.set(key, seen.get(key) === true || afterwards !== before)
          }
        }
      }
    }
    watching[name] = wrapped
  }
  return watching as unknown as Stores
}

let lastStores: Stores | undefined

const openWatched: OpenFreshStores = async (options) => {
  const opened = await openFreshSqlite(options)
  lastStores = opened.stores
  return { ...opened, stores: watched(opened.stores, opened.runtime.generation!) }
}

describe('the credential writes named for PostgreSQL are those SQLite\'s triggers count', () => {
  storeContract('SQLite, watched', openWatched)
  adminContract('SQLite, watched', openWatched)
  oauth2Contract('SQLite, watched', openWatched)
  transactionContract('SQLite, watched', openWatched)

  after(() => {
    const said = saidEffects(lastStores!)
    const wrongly = said.filter(([key, effect]) => effect === 'keeps' && seen.get(key) === true).map(([key]) => key)
    assert.deepEqual(wrongly, [], 'these write a credential table but are said to keep the generation')
    const unseen = said.filter(([key, effect]) => effect === 'moves' && seen.get(key) !== true).map(([key]) => key)
    assert.deepEqual(unseen, [], 'said to move the generation, but never seen doing so')
    const neverAlone = said.filter(([key]) => !seen.has(key)).map(([key]) => key)
    assert.deepEqual(neverAlone, [], 'never seen running alone: what they do to the generation is not known')
  })
})
