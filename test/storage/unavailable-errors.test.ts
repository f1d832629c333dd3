import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import { StorageUnavailableError, isUniqueViolation } from '../../src/storage/errors.ts'
import { describe as describeError, guardStore, isUnavailableError, toStorageError } from '../../src/storage/unavailable.ts'

/**
 * Which errors mean "the database or Redis cannot answer now" (503 code 130, retry later) and which
 * are a bug or a bad query (500, logged): each code and message the drivers use for an outage, and
 * their neighbours that are not one. The outages themselves are in unavailable.test.ts.
 */
const withCode = (code: string, message = 'driver error') => Object.assign(new Error(message), { code })

describe('telling an outage from a failure', () => {
  test('every socket-level failure of a connection is an outage', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']) {
      assert.equal(isUnavailableError(withCode(code)), true, code)
    }
    assert.equal(isUnavailableError(withCode('ENOENT')), false, 'a missing file is not an outage')
    assert.equal(isUnavailableError(withCode('EACCES')), false)
  })

  test("PostgreSQL's connection, capacity, shutdown, cancel and lock states are outages; a wrong query is not", () => {
    for (const code of ['08000', '08003', '08006', '08P01', '53300', '57P01', '57P02', '57P03', '57014', '55P03']) {
      assert.equal(isUnavailableError(withCode(code)), true, code)
    }
    // Syntax error, unique violation, out of disk, another 57 and 55 state, a code that only starts like one.
    for (const code of ['42601', '23505', '53100', '57P04', '57000', '55000', '080000', 'x08000', '553300']) {
      assert.equal(isUnavailableError(withCode(code)), false, code)
    }
  })

  test("pg's and ioredis' messages for a lost connection are outages, at the start of the message only", () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Client has encountered a connection error and is not queryable',
      'Query read timeout',
      'Connection is closed.',
      "Stream isn't writeable and enableOfflineQueue options is false",
      'Command timed out',
      'Redis connection is not ready',
      'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.',
      'OOM command not allowed when used memory > \'maxmemory\'.',
    ]) {
      assert.equal(isUnavailableError(new Error(message)), true, message)
    }
    for (const message of ['Connection terminated', 'timeout exceeded when trying to connect', 'Client has encountered a connection error', 'Query read timeout', 'Connection is closed', "Stream isn't writeable", 'Command timed out', 'Redis connection is not ready', 'Reached the max retries per request limit', 'OOM command not allowed']) {
      assert.equal(isUnavailableError(new Error(`relation "users" does not exist: ${message}`)), false, `${message}: only at the start`)
    }
    assert.equal(isUnavailableError(new Error('oom command not allowed')), false, "Redis's OOM is spelled in capitals")
    assert.equal(isUnavailableError(new Error('ERR unknown command')), false)
    assert.equal(isUnavailableError(Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' })), true)
  })

  test('several errors at once are an outage when one of them is', () => {
    const refused = new AggregateError([withCode('ECONNREFUSED', ''), withCode('ECONNREFUSED', '')], '')
    assert.equal(isUnavailableError(refused), true, 'both addresses of localhost refused')
    assert.equal(isUnavailableError(new AggregateError([new Error('a'), withCode('EHOSTUNREACH')])), true)
    assert.equal(isUnavailableError(new AggregateError([new Error('a'), new Error('b')])), false)
    const aborted = Object.assign(new Error('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [new Error('ERR wrong number of arguments'), new Error("OOM command not allowed when used memory > 'maxmemory'.")],
    })
    assert.equal(isUnavailableError(aborted), true)
    assert.equal(isUnavailableError(Object.assign(new Error('EXECABORT'), { previousErrors: [new Error('ERR syntax')] })), false)
  })

  test('what is not an error object is never an outage', () => {
    for (const value of [undefined, null, 'ECONNREFUSED', 42, { code: 57014 }, { code: ['ECONNRESET'] }, { message: 7 }]) {
      assert.equal(isUnavailableError(value), false, JSON.stringify(value))
    }
    assert.equal(isUnavailableError({ code: 'ECONNRESET' }), true, 'an object with the code, thrown by a driver')
    assert.equal(isUnavailableError(new StorageUnavailableError('already told')), true)
  })

  describe('SQLite', () => {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-busy-'))
    after(() => rmSync(dir, { recursive: true, force: true }))

    test('a database another connection holds is an outage; a wrong statement is not', () => {
      const path = join(dir, 'busy.sqlite')
      const holder = new Database(path)
      const waiter = new Database(path, { timeout: 0 })
      try {
        holder.exec('create table t (x integer); begin exclusive')
        const busy = catchError(() => waiter.prepare('select * from t').all())
        assert.equal((busy as { code?: string }).code, 'SQLITE_BUSY')
        assert.equal(isUnavailableError(busy), true)
        holder.exec('rollback')
        const wrong = catchError(() => waiter.prepare('select * from missing').all())
        assert.equal(isUnavailableError(wrong), false, (wrong as Error).message)
        assert.equal(isUnavailableError(withCode('SQLITE_LOCKED')), true)
        assert.equal(isUnavailableError(withCode('SQLITE_CONSTRAINT_UNIQUE')), false)
      } finally {
        waiter.close()
        holder.close()
      }
    })
  })
})

describe("a unique index's refusal", () => {
  test('is told by its index on PostgreSQL and by its columns on SQLite; nothing else is', () => {
    const postgres = (constraint: string) => Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505', constraint })
    assert.equal(isUniqueViolation(postgres('apps_owner_name_key'), 'apps_owner_name_key', 'apps.owner_id, apps.name_key'), true)
    assert.equal(isUniqueViolation(postgres('apps_consumer_key_hash'), 'apps_owner_name_key', 'apps.owner_id, apps.name_key'), false, 'another index')
    const sqlite = (message: string) => Object.assign(new Error(message), { code: 'SQLITE_CONSTRAINT_UNIQUE' })
    assert.equal(isUniqueViolation(sqlite('UNIQUE constraint failed: apps.owner_id, apps.name_key'), 'apps_owner_name_key', 'apps.owner_id, apps.name_key'), true)
    assert.equal(isUniqueViolation(sqlite('UNIQUE constraint failed: apps.consumer_key_hash'), 'apps_owner_name_key', 'apps.owner_id, apps.name_key'), false, 'other columns')
    assert.equal(isUniqueViolation(Object.assign(new Error('UNIQUE constraint failed: apps.owner_id, apps.name_key'), { code: 'SQLITE_CONSTRAINT_NOTNULL' }), 'apps_owner_name_key', 'apps.owner_id, apps.name_key'), false, 'another constraint')
    assert.equal(isUniqueViolation({ code: 'SQLITE_CONSTRAINT_UNIQUE', message: 42 }, 'apps_owner_name_key', 'apps.owner_id, apps.name_key'), false)
    for (const value of [undefined, null, 'UNIQUE constraint failed: apps.owner_id, apps.name_key']) {
      assert.equal(isUniqueViolation(value, 'apps_owner_name_key', 'apps.owner_id, apps.name_key'), false, String(value))
    }
  })
})

describe('what an outage is called', () => {
  test("the message; else the code; else the first of several errors'; else the first refused command's", () => {
    assert.equal(describeError(withCode('ECONNRESET', 'read ECONNRESET')), 'read ECONNRESET')
    assert.equal(describeError(withCode('ECONNREFUSED', '')), 'ECONNREFUSED')
    assert.equal(describeError(new AggregateError([withCode('ECONNREFUSED', ''), new Error('second')], '')), 'ECONNREFUSED')
    const aborted = Object.assign(new Error('EXECABORT'), { previousErrors: [new Error('OOM command not allowed'), new Error('other')] })
    assert.equal(describeError(aborted), 'OOM command not allowed', 'the refused command says why, not EXECABORT')
    assert.equal(describeError(Object.assign(new Error('EXECABORT'), { previousErrors: [] })), 'EXECABORT')
    assert.equal(describeError(new AggregateError([], '')), 'unavailable')
    assert.equal(describeError({}), 'unavailable')
  })

  test('an outage becomes StorageUnavailableError naming the backend, its cause kept; anything else passes through as it was', () => {
    const refused = withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')
    const told = toStorageError(refused, 'database')
    assert.ok(told instanceof StorageUnavailableError)
    assert.equal(told.message, 'database unavailable: connect ECONNREFUSED 127.0.0.1:5432')
    assert.equal(told.cause, refused)
    const already = new StorageUnavailableError('Redis unavailable: x')
    assert.equal(toStorageError(already, 'database'), already, 'not wrapped twice')
    const bug = new TypeError('x is undefined')
    assert.equal(toStorageError(bug, 'database'), bug)
  })
})

describe('a guarded store', () => {
  test('each method answers as the store does, outages rejected as StorageUnavailableError, other errors untouched, other fields kept', async () => {
    const bug = new RangeError('bad')
    const store = {
      name: 'users',
      calls: 0,
      async find(this: { calls: number }, id: string) {
        this.calls += 1
        return `found ${id}`
      },
      async down() {
        throw withCode('ECONNRESET', 'read ECONNRESET')
      },
      async broken() {
        throw bug
      },
      sync() {
        throw withCode('SQLITE_BUSY', 'database is locked')
      },
    }
    const guarded = guardStore(store, 'database')
    assert.equal(await guarded.find('1'), 'found 1')
    assert.equal(store.calls, 1, 'called on the store itself')
    assert.equal(guarded.name, 'users')
    await assert.rejects(guarded.down(), { name: 'StorageUnavailableError', message: 'database unavailable: read ECONNRESET' })
    await assert.rejects(guarded.broken(), (error) => error === bug)
    await assert.rejects(Promise.resolve().then(() => guarded.sync()), { name: 'StorageUnavailableError', message: 'database unavailable: database is locked' })
  })
})

function catchError(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  assert.fail('expected an error')
}
