// The serve lock in process: one server at a time on a SQLite file whose nonces live in memory
// (test/cli/serve/serve-lock.test.ts starts real servers against it).
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { takeServeLock } from '../../../src/storage/sqlite/serve-lock.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-serve-lock-'))
after(() => rmSync(dir, { recursive: true, force: true }))

describe('the serve lock', () => {
  test('a second lock on the same file is refused until the first is released; another file is apart', () => {
    const path = join(dir, 'one.sqlite')
    const first = takeServeLock(path)
    assert.ok(first)
    assert.ok(existsSync(`${path}.serve-lock`), 'the lock is a file beside the database')
    assert.equal(takeServeLock(path), undefined)
    assert.equal(takeServeLock(`sqlite:${path}`), undefined, 'the same file, named by URL')
    const other = takeServeLock(join(dir, 'other.sqlite'))
    assert.ok(other)
    other.release()
    first.release()
    const again = takeServeLock(path)
    assert.ok(again, 'free once released')
    again.release()
  })

  test('an in-memory or temporary database needs no lock: every taker gets one, and no file is made', () => {
    for (const path of [':memory:', '']) {
      const one = takeServeLock(path)
      const two = takeServeLock(path)
      assert.ok(one && two, path)
      one.abandon()
      two.release()
      assert.ok(!existsSync(`${path}.serve-lock`), path)
    }
  })

  test('abandoning removes the lock file and the folders taking it made, not a folder that was there or holds something', () => {
    const made = join(dir, 'made', 'deeper')
    const path = join(made, 'latchkey.sqlite')
    const lock = takeServeLock(path)
    assert.ok(lock && existsSync(made))
    lock.abandon()
    assert.ok(!existsSync(join(dir, 'made')), 'both folders it made are gone')
    assert.ok(existsSync(dir), 'the folder that was there stays')
    assert.ok(takeServeLock(path)?.abandon() === undefined, 'and the lock is free again')

    const kept = join(dir, 'kept')
    mkdirSync(kept)
    const inner = join(kept, 'a', 'b', 'latchkey.sqlite')
    const second = takeServeLock(inner)
    assert.ok(second)
    writeFileSync(join(kept, 'a', 'note.txt'), 'someone else’s file')
    second.abandon()
    assert.ok(!existsSync(join(kept, 'a', 'b')), 'the empty folder it made is gone')
    assert.ok(existsSync(join(kept, 'a', 'note.txt')), 'a folder holding a file stays')
    assert.ok(existsSync(kept))

    const beside = join(dir, 'beside.sqlite')
    const third = takeServeLock(beside)
    assert.ok(third)
    third.abandon()
    assert.ok(!existsSync(`${beside}.serve-lock`))
    assert.ok(existsSync(dir), 'a database in a folder that existed removes no folder')
  })

  test('a lock file that cannot be opened is an error, not "another server holds it"', () => {
    const path = join(dir, 'blocked.sqlite')
    mkdirSync(`${path}.serve-lock`)
    assert.throws(() => takeServeLock(path), (error: Error & { code?: string }) => error.code !== 'SQLITE_BUSY')
  })
})
