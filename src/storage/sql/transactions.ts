import { AsyncLocalStorage } from 'node:async_hooks'
import { CompiledQuery, SqliteAdapter, type Kysely } from 'kysely'
import type { TransactionStores } from '../types.ts'
import type { Database } from './schema.ts'

/**
 * Units of work (Stores.transaction) on a Kysely database.
 *
 * PostgreSQL: each unit is a transaction of its own on a pooled connection.
 *
 * SQLite: group commit. better-sqlite3 is one synchronous connection, so writes never overlap
 * anyway; what a write costs is its commit, which appends to the WAL a frame for every page the
 * transaction touched (the table's last leaf, a leaf of each index). Most of those pages are the
 * same for the next row, so the units handed over during one turn of the event loop run one after
 * the other inside one `begin immediate … commit`, each in a savepoint of its own so that a unit
 * that throws is rolled back alone, and every unit's promise settles after that commit. 32
 * request_token calls then write a fraction of the WAL frames of 32 commits. Nothing is answered
 * before its commit, so an answered write is exactly as durable as before. `immediate` takes the
 * write lock before the first read: a unit that reads and then writes cannot fail with
 * SQLITE_BUSY_SNAPSHOT when another process (the CLI, a second instance) wrote in between.
 */

/**
 * Marks the code running inside a unit of work, whatever it awaits. A unit must use only its `tx`:
 * on SQLite a call to the outer stores from inside a unit waits for the one connection that the
 * unit's batch holds, and the batch waits for the unit: a hang. The outer stores check this mark
 * (outsideUnitsOnly) and throw at once instead, on every database, so the mistake shows in the
 * first test that makes it.
 *
 * The mark is not free on Node 20: while an AsyncLocalStorage is enabled, every promise the whole
 * process makes runs a hook that copies the mark (bench shape 0 and bench/callgrind.ts show it). So it is enabled only while a unit runs and disabled when
 * the last running unit settles (`unitsRunning`); the storage layer's own writes, which use only
 * `tx` by construction (the grouped audit row), are not marked at all (`runOwnWrite`).
 */
const insideUnit = new AsyncLocalStorage<true>()
let unitsRunning = 0

/** Throws when called inside a unit of work (see insideUnit). */
export function assertOutsideUnit(what: string): void {
  if (insideUnit.getStore()) {
    throw new Error(`${what} was called inside a unit of work: inside stores.transaction(async (tx) => …) use only tx, never the outer stores`)
  }
}

/** The store with every method refusing to run inside a unit of work (the outer stores). */
export function outsideUnitsOnly<T extends object>(store: T, name: string): T {
  const checked: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(store)) {
    checked[key] =
      typeof value === 'function'
        ? (...args: unknown[]) => {
            assertOutsideUnit(`${name}.${key}`)
            return (value as (...a: unknown[]) => unknown).apply(store, args)
          }
        : value
  }
  return checked as T
}

/**
 * How a store's multi-statement write stays atomic: in a transaction of its own, or, for a store
 * bound to a unit of work (`isInUnit`), in the unit's transaction (Kysely cannot nest them).
 */
export function atomicallyOn(db: Kysely<Database>, isInUnit = false): <T>(work: (tx: Kysely<Database>) => Promise<T>) => Promise<T> {
  return (work) => (isInUnit ? work(db) : db.transaction().execute(work))
}

/** Runs a unit's work marked as inside a unit; the mark is switched off when no unit runs. */
async function asUnit<T>(work: (tx: TransactionStores) => Promise<T>, tx: TransactionStores): Promise<T> {
  unitsRunning++
  try {
    return await insideUnit.run(true, () => work(tx))
  } finally {
    // disable() stops the per-promise hook; the next unit's run() enables it again.
    if (--unitsRunning === 0) insideUnit.disable()
  }
}

/** How a unit is run: marked (a use case's work) or as the storage layer's own write (see insideUnit). */
const runAs = <T>(marked: boolean, work: (tx: TransactionStores) => Promise<T>, tx: TransactionStores): Promise<T> =>
  marked ? asUnit(work, tx) : work(tx)

export interface TransactionRunner {
  /** True when units handed over together share one commit (SQLite). */
  isGrouped: boolean
  run<T>(work: (tx: TransactionStores) => Promise<T>): Promise<T>
  /**
   * A unit of the storage layer's own, whose work uses only `tx` by construction (the grouped audit
   * row): run like `run` but not marked, so it costs no async-context tracking.
   */
  runOwnWrite<T>(work: (tx: TransactionStores) => Promise<T>): Promise<T>
  /** Resolves once no unit handed over runs any more (every one so far has settled): call it before closing the database. */
  drain(): Promise<void>
}

/** `storesOn` builds the stores over the connection of one transaction. */
export function createTransactionRunner(db: Kysely<Database>, storesOn: (db: Kysely<Database>) => TransactionStores): TransactionRunner {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return groupCommit(db, storesOn)
  // drain() waits until no unit runs: a unit that never counted itself out would hang close().
  let running = 0
  let idle = Promise.resolve()
  let becameIdle = () => {}
  const settle = () => {
    if (--running === 0) becameIdle()
  }
  const run = <T>(marked: boolean, work: (tx: TransactionStores) => Promise<T>): Promise<T> => {
    assertOutsideUnit('stores.transaction')
    if (running++ === 0) idle = new Promise((resolve) => (becameIdle = resolve))
    const unit = db.transaction().execute((trx) => runAs(marked, work, storesOn(trx)))
    unit.then(settle, settle)
    return unit
  }
  return {
    isGrouped: false,
    run: (work) => run(true, work),
    runOwnWrite: (work) => run(false, work),
    async drain() {
      await idle
    },
  }
}

interface Pending {
  work: (tx: TransactionStores) => Promise<unknown>
  /** False for the storage layer's own writes (runOwnWrite). */
  marked: boolean
  resolve(value: unknown): void
  reject(error: unknown): void
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

function groupCommit(db: Kysely<Database>, storesOn: (db: Kysely<Database>) => TransactionStores): TransactionRunner {
  let queue: Pending[] = []
  /** The last batch handed to the database; batches run in order. */
  let last: Promise<void> = Promise.resolve()
  let bound: Bound | undefined
  const flush = () => {
    if (queue.length === 0) return
    const batch = queue
    queue = []
    last = last.then(() =>
      commitTogether(db, batch, (conn) => {
        // Kysely's SQLite driver has one connection for the database's life: the instance bound to
        // it, and the stores over that (with the queries they compiled), are made once and used
        // again by every batch, which holds the driver's lock while it runs.
        bound ??= { conn, tx: storesOn(conn) }
        return bound
      }),
    )
  }
  const run = <T>(marked: boolean, work: (tx: TransactionStores) => Promise<T>): Promise<T> => {
    assertOutsideUnit('stores.transaction')
    return new Promise<T>((resolve, reject) => {
      // setImmediate runs after the poll phase: every request read in this turn gets to hand over its unit first.
      if (queue.push({ work, marked, resolve: resolve as (value: unknown) => void, reject }) === 1) setImmediate(flush)
    })
  }
  return {
    isGrouped: true,
    run: (work) => run(true, work),
    runOwnWrite: (work) => run(false, work),
    async drain() {
      flush()
      await last
    },
  }
}

const run = (conn: Kysely<Database>, text: string) => conn.executeQuery(CompiledQuery.raw(text))

interface Bound {
  conn: Kysely<Database>
  tx: TransactionStores
}

async function commitTogether(db: Kysely<Database>, batch: Pending[], bind: (conn: Kysely<Database>) => Bound): Promise<void> {
  const outcomes: Outcome[] = []
  try {
    await db.connection().execute(async (held) => {
      const { conn, tx } = bind(held)
      await run(conn, 'begin immediate')
      try {
        // Alone, a unit needs no savepoint: its failure rolls back the transaction.
        const alone = batch.length === 1 ? (batch[0] as Pending) : undefined
        if (alone) outcomes.push({ ok: true, value: await runAs(alone.marked, alone.work, tx) })
        else for (const unit of batch) outcomes.push(await inSavepoint(conn, () => runAs(unit.marked, unit.work, tx)))
        await run(conn, 'commit')
      } catch (error) {
        // SQLite rolls back by itself after some errors (a full disk): then there is nothing left to roll back.
        await run(conn, 'rollback').catch(() => {})
        throw error
      }
    })
  } catch (error) {
    // Nothing was committed: every unit fails, with its own error when it had one.
    batch.forEach((unit, i) => {
      const outcome = outcomes[i]
      unit.reject(outcome && !outcome.ok ? outcome.error : error)
    })
    return
  }
  batch.forEach((unit, i) => {
    const outcome = outcomes[i] as Outcome
    if (outcome.ok) unit.resolve(outcome.value)
    else unit.reject(outcome.error)
  })
}

async function inSavepoint(conn: Kysely<Database>, work: () => Promise<unknown>): Promise<Outcome> {
  await run(conn, 'savepoint unit')
  try {
    const value = await work()
    await run(conn, 'release unit')
    return { ok: true, value }
  } catch (error) {
    // When SQLite already rolled back the whole transaction, the savepoint is gone: the batch fails with this error.
    await run(conn, 'rollback to unit').catch(() => {
      throw error
    })
    await run(conn, 'release unit')
    return { ok: false, error }
  }
}
