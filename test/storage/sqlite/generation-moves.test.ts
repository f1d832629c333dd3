// On PostgreSQL with Redis the credentials' generation is moved by the store methods that
// CREDENTIAL_WRITES (src/storage/generation-moves.ts) names; on SQLite the database's triggers move
// it by table. The store contracts run here on SQLite with every call of those stores watched: each
// method the triggers show writing a credential table must be one the list says moves, and each
// the list says moves must be seen doing so.
import assert from 'node:assert/strict'
import { after, describe } from 'node:test'
import { CREDENTIAL_WRITES } from '../../../src/storage/generation-moves.ts'
import type { Generation, Stores } from '../../../src/storage/types.ts'
import { adminContract } from '../admin-contract.ts'
import { storeContract, type OpenFreshStores } from '../contract.ts'
import { oauth2Contract } from '../oauth2-contract.ts'
import { openFreshSqlite } from './open-fresh.ts'

/** For each watched method, whether it was seen moving the generation (absent: never seen alone). */
const seen = new Map<string, boolean>()

/** The stores with each method of CREDENTIAL_WRITES watched when it runs alone (no other call on them in flight). */
function watched(stores: Stores, generation: Generation): Stores {
  let running = 0
  let started = 0
  const watching: Record<string, unknown> = { ...stores }
  for (const [name, methods] of Object.entries(CREDENTIAL_WRITES)) {
    const store = stores[name as keyof typeof CREDENTIAL_WRITES] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
    const wrapped: Record<string, unknown> = { ...store }
    for (const method of Object.keys(methods)) {
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

const openWatched: OpenFreshStores = async (options) => {
  const opened = await openFreshSqlite(options)
  return { ...opened, stores: watched(opened.stores, opened.runtime.generation!) }
}

describe('the credential writes named for PostgreSQL are those SQLite\'s triggers count', () => {
  storeContract('SQLite, watched', openWatched)
  adminContract('SQLite, watched', openWatched)
  oauth2Contract('SQLite, watched', openWatched)

  after(() => {
    const said = Object.entries(CREDENTIAL_WRITES).flatMap(([name, methods]) => Object.entries(methods).map(([method, effect]) => [`${name}.${method}`, effect] as const))
    const wrongly = said.filter(([key, effect]) => effect === 'keeps' && seen.get(key) === true).map(([key]) => key)
    assert.deepEqual(wrongly, [], 'these write a credential table but are said to keep the generation')
    const unseen = said.filter(([key, effect]) => effect === 'moves' && seen.get(key) !== true).map(([key]) => key)
    assert.deepEqual(unseen, [], 'said to move the generation, but never seen doing so')
  })
})
