// Backup, inspection and restore of the embedded database, in process (test/cli/data.test.ts runs
// the real commands beside real servers).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import { DatabaseRefusedError } from '../../../src/storage/errors.ts'
import { MIGRATION_NAMES } from '../../../src/storage/sql/migrations.ts'
import { BACKUP_SEAL_TABLE } from '../../../src/storage/sqlite/backup-seal.ts'
import { backupSqlite, inspectDatabaseFile, restoreSqlite } from '../../../src/storage/sqlite/backup.ts'
import { newKeyring, parseKeyring, withNewActiveKey, withoutKey, type KeyringSource } from '../../../src/storage/sealing/keyring.ts'
import { takeServeLock } from '../../../src/storage/sqlite/serve-lock.ts'
import { TEST_MASTER_KEY, testKeyring } from '../../helpers/keys.ts'
import { tableContents } from '../../helpers/stored-rows.ts'
import { appRecord, userRecord } from '../contract.ts'
import { insertAuditRows, withStoresAt } from '../seeded.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-backup-'))
after(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const newPath = (name: string) => join(dir, `${++files}-${name}`)

/** A migrated database with a person and an app, and `auditRows` audit rows of about 2 KB each. */
async function databaseWith(auditRows = 0): Promise<string> {
  const path = newPath('latchkey.sqlite')
  await withStoresAt(path, async (stores) => {
    const user = userRecord()
    await stores.users.create(user)
    await stores.apps.create(appRecord(user.id))
  })
  insertAuditRows(path, auditRows, 2000)
  return path
}

function write(path: string, change: (db: Sqlite.Database) => void): void {
  const db = new Sqlite(path)
  try {
    change(db)
  } finally {
    db.close()
  }
}

const KEYS = testKeyring()

/** The files beside `path` whose names begin with its own. */
const besides = (path: string) => readdirSync(join(path, '..')).filter((name) => name.startsWith(path.split('/').at(-1)!) && join(path, '..', name) !== path)

const refused = (message: RegExp) => (error: Error) => error instanceof DatabaseRefusedError && message.test(error.message)

describe('backup of the embedded database', () => {
  test('the copy holds every row; the report names its file, size, last migration and rows per table, bookkeeping left out', async () => {
    const path = await databaseWith(3)
    const file = newPath('backup.sqlite')
    const seen: Array<[number, number]> = []
    const report = await backupSqlite(path, file, KEYS, (copied, total) => seen.push([copied, total]))
    const { [BACKUP_SEAL_TABLE]: seal, ...copied } = await tableContents(file)
    assert.deepEqual(copied, await tableContents(path))
    assert.equal(seal?.length, 1, 'and its seal')
    assert.equal(report.file, file)
    assert.equal(report.schemaVersion, MIGRATION_NAMES.at(-1))
    assert.ok(report.bytes > 0)
    assert.equal(report.rows.users, 1)
    assert.equal(report.rows.apps, 1)
    assert.equal(report.rows.audit_events, 3)
    assert.ok(!('latchkey_migrations' in report.rows) && !('latchkey_migration_lock' in report.rows) && !('credential_generation' in report.rows), Object.keys(report.rows).join())
    assert.equal(report.rows.request_tokens, 0, 'empty tables are named too')
    const last = seen.at(-1)!
    assert.ok(last[1] > 0 && last[0] === last[1], `the last progress is all pages: ${JSON.stringify(seen)}`)
    assert.ok(
      seen.every(([copied, total], i) => copied >= 0 && copied <= total && copied >= (seen[i - 1]?.[0] ?? 0)),
      `progress only grows, never past all pages: ${JSON.stringify(seen)}`,
    )
  })

  test('a database by URL is backed up too', async () => {
    const path = await databaseWith()
    const report = await backupSqlite(`sqlite:${path}`, newPath('by-url.sqlite'), KEYS)
    assert.equal(report.rows.users, 1)
  })

  test('writes from another connection at every step restart the copy at most once more: it ends, with every row committed before its last step', async () => {
    const path = await databaseWith(2500)
    const writer = new Sqlite(path)
    const insert = writer.prepare("insert into audit_events (at_ms, event) values (?, 'app.created')")
    let steps = 0
    let written = 0
    try {
      const report = await backupSqlite(path, newPath('busy.sqlite'), KEYS, () => {
        steps++
        // Stops after 200 writes, so that a copy that restarts for ever still ends, and fails here.
        if (written < 200) insert.run(++written)
      })
      assert.ok(steps >= 3, `several steps of a thousand pages: ${steps}`)
      assert.ok(steps < 12, `a busy writer cannot keep it going: ${steps} steps for ${written} writes`)
      assert.ok(report.rows.audit_events! >= 2500 + written - 1, `${report.rows.audit_events} rows, ${written} written during the copy`)
    } finally {
      writer.close()
    }
  })

  test('refuses a database that does not exist and a file that exists, and leaves both alone', async () => {
    const missing = newPath('missing.sqlite')
    await assert.rejects(backupSqlite(missing, newPath('never.sqlite'), KEYS), refused(/^there is no database at .*missing\.sqlite$/))
    assert.ok(!existsSync(missing))
    const path = await databaseWith()
    const existing = newPath('existing.sqlite')
    writeFileSync(existing, 'keep me')
    await assert.rejects(backupSqlite(path, existing, KEYS), refused(/existing\.sqlite exists: name a new file \(a backup never overwrites one\)/))
    assert.equal(readFileSync(existing, 'utf8'), 'keep me')
  })

  test('a backup that fails leaves no file behind', async () => {
    const path = await databaseWith()
    const file = join(dir, 'no-such-folder', 'backup.sqlite')
    await assert.rejects(backupSqlite(path, file, KEYS))
    assert.ok(!existsSync(file))
  })

  test('a backup whose progress report fails, part way or at the end, leaves no file behind', async () => {
    const path = await databaseWith(3000)
    for (const [name, failsAt] of [['part-way.sqlite', () => true], ['at-the-end.sqlite', (copied: number, total: number) => copied === total]] as const) {
      const file = newPath(name)
      await assert.rejects(
        backupSqlite(path, file, KEYS, (copied, total) => {
          if (failsAt(copied, total)) throw new Error('the terminal went away')
        }),
        /the terminal went away/,
      )
      assert.ok(!existsSync(file), name)
    }
  })
})

describe('inspecting a file before a restore', () => {
  test('refuses what is not a whole Latchkey database this version can run, each in words', async () => {
    assert.throws(() => inspectDatabaseFile(newPath('absent.sqlite')), refused(/^there is no file .*absent\.sqlite$/))

    const text = newPath('text.sqlite')
    writeFileSync(text, 'this is not a database, only some words that are long enough to fill a header. '.repeat(3))
    assert.throws(() => inspectDatabaseFile(text), refused(/text\.sqlite (is not a SQLite database|cannot be read as a SQLite database)/))

    const foreign = newPath('foreign.sqlite')
    write(foreign, (db) => db.exec('create table notes (id integer primary key)'))
    assert.throws(() => inspectDatabaseFile(foreign), refused(/foreign\.sqlite is not a Latchkey database \(it has no latchkey_migrations table\)/))

    const newer = await databaseWith()
    write(newer, (db) => {
      for (const name of ['998-from-the-future', '999-from-the-future']) db.prepare('insert into latchkey_migrations (name, timestamp) values (?, ?)').run(name, new Date().toISOString())
    })
    assert.throws(() => inspectDatabaseFile(newer), refused(/was made by a newer Latchkey \(migration 998-from-the-future, 999-from-the-future is unknown to this version\): upgrade first/))

    const damaged = await databaseWith(300)
    write(damaged, (db) => db.pragma('journal_mode = delete'))
    // Pages in the middle of the audit table overwritten: a disk that lost part of a write.
    const bytes = readFileSync(damaged)
    bytes.fill(0xa5, 40 * 4096, 44 * 4096)
    writeFileSync(damaged, bytes)
    assert.throws(() => inspectDatabaseFile(damaged), refused(/damaged|fails SQLite's integrity check|cannot be read as a SQLite database/))
  })

  test('a database that ran only some migrations is accepted, named by its last', async () => {
    const older = await databaseWith()
    write(older, (db) => db.prepare('delete from latchkey_migrations where name = ?').run(MIGRATION_NAMES.at(-1)))
    assert.equal(inspectDatabaseFile(older).schemaVersion, MIGRATION_NAMES.at(-2))
  })
})

describe('restoring a backup', () => {
  test('the backup takes the database’s place, its -wal and -shm removed; the report names the database', async () => {
    const path = await databaseWith()
    const file = newPath('restore-me.sqlite')
    await backupSqlite(path, file, KEYS)
    insertAuditRows(path, 5)
    writeFileSync(`${path}-wal`, '')
    writeFileSync(`${path}-shm`, '')
    const report = restoreSqlite(path, file, KEYS)
    assert.equal(report.file, path)
    // Before anything opens the database again (a reader in WAL mode makes both anew).
    assert.ok(!existsSync(`${path}-wal`), 'no -wal')
    assert.ok(!existsSync(`${path}-shm`), 'no -shm')
    assert.equal(report.rows.audit_events, 0)
    const { [BACKUP_SEAL_TABLE]: seal, ...backedUp } = await tableContents(file)
    assert.deepEqual(await tableContents(path), backedUp, 'all but the seal')
    assert.equal(seal?.length, 1)
    assert.ok(existsSync(file), 'the backup stays')
    const lock = takeServeLock(path)
    assert.ok(lock, 'and the lock is given back')
    lock.release()
    for (const leftover of [`${path}-wal`, `${path}-shm`]) rmSync(leftover, { force: true })
    assert.equal(restoreSqlite(path, file, KEYS).file, path, 'again, with no -wal or -shm to remove')
  })

  test('the database it replaces is kept beside it, with what was written after the backup, until the next restore', async () => {
    const path = await databaseWith(1)
    const file = newPath('keep-me.sqlite')
    await backupSqlite(path, file, KEYS)
    // A row written after the backup by a process that was killed: it is only in the database's WAL.
    const killed = spawnSync(process.execPath, ['-e', `const db = new (require('better-sqlite3'))(${JSON.stringify(path)}); db.prepare("insert into audit_events (at_ms, event) values (1, 'app.created')").run(); process.kill(process.pid, 'SIGKILL')`])
    assert.equal(killed.signal, 'SIGKILL', String(killed.stderr))
    assert.ok(statSync(`${path}-wal`).size > 0)
    const report = restoreSqlite(path, file, KEYS)
    const kept = `${path}.before-restore`
    assert.equal(report.replacedKeptAs, kept)
    assert.equal(inspectDatabaseFile(kept).rows.audit_events, 2, 'the replaced database, whole')
    assert.equal(inspectDatabaseFile(path).rows.audit_events, 1, 'the backup in its place')

    insertAuditRows(path, 5)
    assert.equal(restoreSqlite(path, file, KEYS).replacedKeptAs, kept)
    assert.equal(inspectDatabaseFile(kept).rows.audit_events, 6, 'the next restore keeps the database it replaces instead')

    const nothingThere = newPath('nothing-there.sqlite')
    const first = restoreSqlite(nothingThere, file, KEYS)
    assert.equal(first.replacedKeptAs, undefined, 'nothing to keep')
    assert.ok(!existsSync(`${nothingThere}.before-restore`))
  })

  test('refused while a server holds the database, which stays as it was', async () => {
    const path = await databaseWith(2)
    const file = newPath('backup.sqlite')
    await backupSqlite(path, file, KEYS)
    insertAuditRows(path, 1)
    const lock = takeServeLock(path)!
    try {
      assert.throws(() => restoreSqlite(path, file, KEYS), refused(/^a latchkey server is running on .*: stop it first$/))
    } finally {
      lock.release()
    }
    assert.equal(inspectDatabaseFile(path).rows.audit_events, 3)
  })

  test('refuses a file that is not a Latchkey database before touching the database', async () => {
    const path = await databaseWith(1)
    const foreign = newPath('foreign.sqlite')
    write(foreign, (db) => db.exec('create table notes (id integer primary key)'))
    assert.throws(() => restoreSqlite(path, foreign, KEYS), refused(/is not a Latchkey database/))
    assert.equal(inspectDatabaseFile(path).rows.audit_events, 1)
  })
})

describe('who may read the files', () => {
  // The usual umask, which leaves a new file readable by everyone unless its maker says otherwise.
  let umask: number
  before(() => (umask = process.umask(0o022)))
  after(() => process.umask(umask))

  const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

  test('a new database, its -wal and -shm are its owner\'s only', async () => {
    const path = join(dir, `fresh-${++files}`, 'latchkey.sqlite')
    await withStoresAt(path, async (stores) => {
      await stores.users.create(userRecord())
      assert.deepEqual([path, `${path}-wal`, `${path}-shm`].map(modeOf), ['600', '600', '600'])
    })
    assert.equal(modeOf(join(path, '..')), '700', 'and the folder made for it')
  })

  test('a backup is its owner\'s only and its one file, before and after it is inspected; a restored database is its owner\'s only', async () => {
    const path = await databaseWith(2)
    const file = newPath('private.sqlite')
    await backupSqlite(path, file, KEYS)
    assert.equal(modeOf(file), '600')
    assert.deepEqual(besides(file), [], 'no -wal, -shm or journal beside it')
    inspectDatabaseFile(file)
    assert.deepEqual(besides(file), [], 'not even once read')
    const readable = newPath('readable.sqlite')
    writeFileSync(readable, readFileSync(file), { mode: 0o644 })
    const target = await databaseWith()
    restoreSqlite(target, readable, KEYS)
    assert.equal(modeOf(target), '600')
    assert.equal(inspectDatabaseFile(target).rows.audit_events, 2)
  })

  test('a link as the backup\'s name, even one to nowhere, is refused, not followed', async () => {
    const path = await databaseWith()
    const nowhere = newPath('nowhere.sqlite')
    const dangling = newPath('dangling.sqlite')
    symlinkSync(nowhere, dangling)
    await assert.rejects(backupSqlite(path, dangling, KEYS), refused(/dangling\.sqlite exists: name a new file/))
    assert.ok(!existsSync(nowhere), 'nothing was written where the link points')
    const kept = newPath('kept.txt')
    writeFileSync(kept, 'keep me')
    const link = newPath('link.sqlite')
    symlinkSync(kept, link)
    await assert.rejects(backupSqlite(path, link, KEYS), refused(/link\.sqlite exists/))
    assert.equal(readFileSync(kept, 'utf8'), 'keep me')
  })
})

describe('a backup proves it is untouched', () => {
  /** A database, its backup, and a function that makes an edited copy of that backup. */
  async function backedUp() {
    const path = await databaseWith(2)
    const file = newPath('sealed.sqlite')
    await backupSqlite(path, file, KEYS)
    const edited = (edit: (db: Sqlite.Database) => void) => {
      const copy = newPath('edited.sqlite')
      writeFileSync(copy, readFileSync(file))
      write(copy, edit)
      return copy
    }
    return { path, file, edited }
  }

  /** The restore is refused and the database is as it was: nothing replaced, nothing kept, nothing left beside it. */
  async function assertRefusedUntouched(path: string, file: string, message: RegExp, keyring = KEYS) {
    const before = await tableContents(path)
    assert.throws(() => restoreSqlite(path, file, keyring), refused(message))
    assert.deepEqual(await tableContents(path), before)
    assert.deepEqual(besides(path).filter((name) => /restor/.test(name)), [], 'no copy left, none kept')
  }

  const CHANGED = /edited\.sqlite was changed after `latchkey backup` made it, or was made under another master key: its seal does not match$/

  test('an edit made offline is refused, whatever it changed: a password hash, a callback, one character of a sealed secret, a trigger, a row gone', async () => {
    const { path, file, edited } = await backedUp()
    const edits: Array<[string, (db: Sqlite.Database) => void]> = [
      ['a password hash replaced', (db) => db.prepare('update users set password_hash = ?').run('scrypt$32768$8$1$attacker$attacker')],
      ['a callback added', (db) => db.prepare('update apps set callback_urls = ?').run(JSON.stringify(['https://app.example/cb', 'https://evil.example/cb']))],
      [
        'one character of a sealed consumer secret',
        (db) => {
          const { secret } = db.prepare('select consumer_secret as secret from apps').get() as { secret: string }
          const at = secret.length - 5
          db.prepare('update apps set consumer_secret = ?').run(`${secret.slice(0, at)}${secret[at] === 'A' ? 'B' : 'A'}${secret.slice(at + 1)}`)
        },
      ],
      ['a trigger', (db) => db.exec("create trigger spy after insert on access_tokens begin insert into audit_events (at_ms, event) values (0, 'x'); end")],
      ['an audit row gone', (db) => db.exec('delete from audit_events where id = 1')],
    ]
    for (const [what, edit] of edits) await assertRefusedUntouched(path, edited(edit), CHANGED).catch((error: Error) => assert.fail(`${what}: ${error.message}`))
    assert.equal(restoreSqlite(path, file, KEYS).rows.audit_events, 2, 'the untouched backup is restored')
  })

  test('a file without the seal, or with a seal made under another master key, is refused', async () => {
    const { path, file, edited } = await backedUp()
    await assertRefusedUntouched(path, edited((db) => db.exec(`drop table ${BACKUP_SEAL_TABLE}`)), /edited\.sqlite carries no seal of `latchkey backup`: only a file it made can be restored$/)
    await assertRefusedUntouched(path, edited((db) => db.exec(`insert into ${BACKUP_SEAL_TABLE} select * from ${BACKUP_SEAL_TABLE}`)), /carries no seal of `latchkey backup`/)
    const another: KeyringSource = { kind: 'inline', keyring: newKeyring() }
    await assertRefusedUntouched(path, file, /sealed\.sqlite was changed after `latchkey backup` made it, or was made under another master key/, another)
  })

  test('a backup holding values sealed under a key since retired is refused before anything is replaced, naming where they are', async () => {
    const { path, file } = await backedUp()
    const old = parseKeyring(TEST_MASTER_KEY)
    const rotated = withNewActiveKey(old)
    const retired: KeyringSource = { kind: 'inline', keyring: withoutKey(rotated, old.activeKeyId) }
    await assertRefusedUntouched(path, file, /sealed\.sqlite holds 2 sealed values the master key cannot open \(apps\.consumer_key, apps\.consumer_secret\): was it made under a key since retired\?$/, retired)
    assert.equal(restoreSqlite(path, file, { kind: 'inline', keyring: rotated }).rows.apps, 1, 'with the old key still held, it is restored')
  })
})
