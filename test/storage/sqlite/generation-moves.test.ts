// On PostgreSQL with Redis the credentials' generation is moved by the store methods that
// CREDENTIAL_WRITES (src/storage/generation-moves.ts) names; on SQLite the database's triggers move
// it by table. The store contracts (and the units of work's) run here on SQLite with every store
// call watched: each method the triggers show writing a credential table must be one the list says
// moves (a store it does not name moves it in none), each the list says moves must be seen doing
// so, and each method must be seen running alone at least once.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { CREDENTIAL_WRITES, withGenerationMoves } from '../../../src/storage/generation-moves.ts'
import { AppNameTakenError, StorageUnavailableError } from '../../../src/storage/errors.ts'
import type { AppRecord } from '../../../src/storage/records.ts'
import type { Generation, Stores } from '../../../src/storage/types.ts'
import { adminContract } from '../admin-contract.ts'
import { appRecord, requestTokenRecord, storeContract, userRecord, type OpenFreshStores } from '../contract.ts'
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

describe('withGenerationMoves: when the generation moves and whose error a caller sees', () => {
  /** Fresh stores whose moves are counted, each failing while `failing` is set. */
  async function moving(body: (s: Stores, moves: { count: number; failing: boolean; probe?: () => Promise<void> }) => Promise<void>) {
    const opened = await openFreshSqlite({ settleNonceEpoch: false })
    const moves: { count: number; failing: boolean; probe?: () => Promise<void> } = { count: 0, failing: false }
    const move = async () => {
      await moves.probe?.()
      moves.count++
      if (moves.failing) throw new StorageUnavailableError('Redis is down')
    }
    try {
      await body(withGenerationMoves(opened.stores, move), moves)
    } finally {
      await opened.close()
    }
  }

  /** A person with two apps: three credential writes. */
  async function twoAppsOfOneOwner(s: Stores): Promise<[AppRecord, AppRecord]> {
    const owner = userRecord()
    const apps: [AppRecord, AppRecord] = [appRecord(owner.id), appRecord(owner.id)]
    await s.users.create(owner)
    for (const app of apps) await s.apps.create(app)
    return apps
  }

  test('a credential write moves it once, after the write, whatever its outcome; a read or another table never', async () => {
    await moving(async (s, moves) => {
      const [first, second] = await twoAppsOfOneOwner(s)
      assert.equal(moves.count, 3)
      await s.apps.findById(first.id)
      await s.requestTokens.create(requestTokenRecord(first.id))
      assert.equal(moves.count, 3, 'a read and a request token keep it')
      await assert.rejects(s.apps.update(second.id, { name: first.name }, Date.now()), AppNameTakenError)
      assert.equal(moves.count, 4, 'a write that failed may have committed: it moves too')
      const namesAtMove: Array<string | undefined> = []
      moves.probe = async () => void namesAtMove.push((await s.apps.findById(second.id))?.name)
      await s.apps.update(second.id, { name: 'Renamed' }, Date.now())
      assert.deepEqual(namesAtMove, ['Renamed'], 'moved once the write is there to read')
    })
  })

  test('a failed move fails a write that succeeded; a write that failed keeps its own error', async () => {
    await moving(async (s, moves) => {
      const [first, second] = await twoAppsOfOneOwner(s)
      moves.failing = true
      await assert.rejects(s.apps.update(second.id, { name: 'Renamed' }, Date.now()), StorageUnavailableError)
      assert.equal((await s.apps.findById(second.id))?.name, 'Renamed', 'written, but not answered as done')
      await assert.rejects(s.apps.update(second.id, { name: first.name }, Date.now()), AppNameTakenError)
    })
  })

  test('a unit of work moves it once, after its commit, when one of its calls wrote a credential; its own error wins', async () => {
    await moving(async (s, moves) => {
      const owner = userRecord()
      await s.transaction(async (tx) => {
        await tx.users.create(owner)
        await tx.apps.create(appRecord(owner.id))
        assert.equal(moves.count, 0, 'not before the commit')
      })
      assert.equal(moves.count, 1)
      await s.transaction((tx) => tx.users.findById(owner.id))
      assert.equal(moves.count, 1, 'a unit that only read keeps it')
      moves.failing = true
      const refused = new Error('the unit gives up')
      await assert.rejects(
        s.transaction(async (tx) => {
          await tx.apps.create(appRecord(owner.id))
          throw refused
        }),
        (error) => error === refused,
      )
      assert.equal(moves.count, 2, 'a unit that wrote and failed moves it too')
      await assert.rejects(s.transaction((tx) => tx.apps.create(appRecord(owner.id))), StorageUnavailableError)
    })
  })
})
