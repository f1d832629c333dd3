// Issue 32: backup and restore of the embedded database, the real command beside real servers.
import assert from 'node:assert/strict'
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import { openStorage } from '../../src/storage/open-stores.ts'
import { runCli, runCliAtTerminal, type CliResult } from '../helpers/cli.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { testKeyring } from '../helpers/keys.ts'
import { startServe } from '../helpers/serve-process.ts'
import { startTestServer } from '../helpers/test-app.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-data-'))
after(() => rmSync(dir, { recursive: true, force: true }))

function assertRefused(result: CliResult, message: RegExp): void {
  assert.notEqual(result.code, 0)
  assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr)
  assert.match(result.stderr, message)
}

const integrityOf = (file: string) => {
  const db = new Sqlite(file, { readonly: true })
  try {
    return db.pragma('integrity_check', { simple: true })
  } finally {
    db.close()
  }
}

/** The request tokens of `file` as the stores find them (on a copy: opening migrates and writes). */
async function requestTokensIn(file: string, tokens: string[]): Promise<number> {
  const copy = join(dir, `look-${Date.now()}.sqlite`)
  copyFileSync(file, copy)
  const { stores, runtime } = await openStorage({ keyring: testKeyring(), databaseUrl: copy, settleNonceEpoch: false })
  try {
    let found = 0
    for (const token of tokens) if (await stores.requestTokens.findByToken(token)) found++
    return found
  } finally {
    await runtime.close()
  }
}

describe('latchkey backup and restore', () => {
  test('a backup made while the server writes holds every token answered before it began, and passes the integrity check', async () => {
    const server = await startTestServer({ settings: { rateLimitMultiplier: 1000 } })
    try {
      const app = await makeApp(server.domain)
      const consumer = { key: app.consumerKey, secret: app.consumerSecret }
      const issue = async () => {
        const answer = await server.signedFetch({ consumer, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
        assert.equal(answer.status, 200, answer.text)
        return answer.form.oauth_token!
      }
      const before: string[] = []
      for (let i = 0; i < 200; i++) before.push(await issue())
      let writing = true
      const during: string[] = []
      const writer = (async () => {
        while (writing) during.push(await issue())
      })()
      const file = join(dir, 'while-writing.sqlite')
      const backup = await runCli(['backup', file, '--json'], { LATCHKEY_DATABASE_URL: server.dbPath })
      writing = false
      await writer
      assert.equal(backup.code, 0, backup.stderr)
      const report = JSON.parse(backup.stdout) as { file: string; schema_version: string; rows: Record<string, number> }
      assert.equal(report.file, file)
      assert.match(report.schema_version, /^\d{3}-/)
      assert.ok(report.rows.request_tokens! >= before.length, JSON.stringify(report.rows))
      assert.ok(during.length > 0, 'the server wrote while the backup ran')
      assert.equal(integrityOf(file), 'ok')
      assert.equal(await requestTokensIn(file, before), before.length, 'every token answered before the backup began is in it')
      assertRefused(await runCli(['backup', file], { LATCHKEY_DATABASE_URL: server.dbPath }), /exists: name a new file/)
    } finally {
      await server.close()
    }
  })

  test('restore: refused while a server runs on the database, and for a file that is not a whole Latchkey database; then the backup is the database', async () => {
    const database = join(dir, 'restored.sqlite')
    const env = { LATCHKEY_DATABASE_URL: database }
    const first = await runCli(['user', 'create', '--screen-name', 'before_backup', '--password-stdin', '--json'], env, 'a long enough password\n')
    assert.equal(first.code, 0, first.stderr)
    const file = join(dir, 'restore-me.sqlite')
    assert.equal((await runCli(['backup', file], env)).code, 0)
    assert.equal((await runCli(['user', 'create', '--screen-name', 'after_backup', '--password-stdin'], env, 'a long enough password\n')).code, 0)

    const server = await startServe(['--port', '0', '--dev', '--database', database])
    try {
      assertRefused(await runCli(['restore', file, '--yes'], env), /a latchkey server is running on .*: stop it first/)
    } finally {
      assert.equal(await server.stop(), 0)
    }
    const notSqlite = join(dir, 'not-sqlite.sqlite')
    writeFileSync(notSqlite, 'this is not a database at all, just text long enough to have a header')
    assertRefused(await runCli(['restore', notSqlite, '--yes'], env), /not a SQLite database|cannot be read as a SQLite database/)
    const stranger = join(dir, 'stranger.sqlite')
    new Sqlite(stranger).exec('create table notes (id integer primary key, text text)').close()
    assertRefused(await runCli(['restore', stranger, '--yes'], env), /is not a Latchkey database/)
    const newer = join(dir, 'newer.sqlite')
    copyFileSync(file, newer)
    new Sqlite(newer).exec("insert into latchkey_migrations (name, timestamp) values ('999-from-the-future', '2030-01-01')").close()
    assertRefused(await runCli(['restore', newer, '--yes'], env), /made by a newer Latchkey \(migration 999-from-the-future/)
    // A backup with one page damaged on disk: the users table's cell pointers overwritten.
    const damaged = join(dir, 'damaged.sqlite')
    copyFileSync(file, damaged)
    const layout = new Sqlite(damaged, { readonly: true })
    const pageSize = layout.pragma('page_size', { simple: true }) as number
    const root = (layout.prepare("select rootpage from sqlite_master where name = 'users'").get() as { rootpage: number }).rootpage
    layout.close()
    const handle = openSync(damaged, 'r+')
    writeSync(handle, Buffer.alloc(16, 0xff), 0, 16, (root - 1) * pageSize + 8)
    closeSync(handle)
    assert.notEqual(integrityOf(damaged), 'ok')
    assertRefused(await runCli(['restore', damaged, '--yes'], env), /fails SQLite's integrity check/)
    // Edited offline: the person's password hash replaced by one the editor knows.
    const edited = join(dir, 'edited.sqlite')
    copyFileSync(file, edited)
    new Sqlite(edited).exec("update users set password_hash = 'scrypt$32768$8$1$attacker$attacker'").close()
    assertRefused(await runCli(['restore', edited, '--yes'], env), /edited\.sqlite was changed after `latchkey backup` made it, or was made under another master key: its seal does not match/)
    assert.deepEqual(await screenNames(env), ['after_backup', 'before_backup'], 'every refusal changed nothing')

    // From a script, without --yes: nobody was asked, so nothing is replaced.
    assertRefused(await runCli(['restore', file], env), /^latchkey: nothing changed: Restoring .* replaces everything in .*\. Not at a terminal, nobody could be asked: --yes says go ahead$/m)
    assert.deepEqual(await screenNames(env), ['after_backup', 'before_backup'])
    const declined = await runCliAtTerminal(['restore', file], env, [{ after: /Go ahead\? \[y\/N\] /, type: 'n' }])
    assert.notEqual(declined.code, 0)
    assert.deepEqual(await screenNames(env), ['after_backup', 'before_backup'])

    const restored = await runCli(['restore', file, '--yes', '--json'], env)
    assert.equal(restored.code, 0, restored.stderr)
    const kept = `${database}.before-restore`
    assert.equal((JSON.parse(restored.stdout) as { replaced_database_kept_as: string }).replaced_database_kept_as, kept)
    assert.deepEqual(await screenNames(env), ['before_backup'])
    assert.deepEqual(await screenNames({ LATCHKEY_DATABASE_URL: kept }), ['after_backup', 'before_backup'], 'everything made after the backup is kept')
    assert.ok(!existsSync(`${database}.restoring-${process.pid}`))

    const asked = await runCliAtTerminal(['restore', file], env, [{ after: /Go ahead\? \[y\/N\] /, type: 'y' }])
    assert.equal(asked.code, 0, asked.stdout)
    assert.match(asked.stdout, new RegExp(`the database it replaced is kept as ${kept} until the next restore`))
  })

  test('on PostgreSQL, backup says to use pg_dump', async () => {
    assertRefused(await runCli(['backup', join(dir, 'pg.dump')], { LATCHKEY_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }), /on PostgreSQL, back up with pg_dump/)
  })
})

async function screenNames(env: Record<string, string>): Promise<string[]> {
  const listed = await runCli(['user', 'list', '--json'], env)
  assert.equal(listed.code, 0, listed.stderr)
  return (JSON.parse(listed.stdout) as Array<{ screen_name: string }>).map((u) => u.screen_name).sort()
}

