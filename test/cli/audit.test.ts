import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { parseSince } from '../../src/cli/commands/audit.ts'
import { listAuditEvents } from '../../src/domain/audit-query.ts'
import { updateApp } from '../../src/domain/registry/apps.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { newKeyring, writeKeyringFile } from '../../src/storage/sealing/keyring.ts'
import { runCli, type CliResult } from '../helpers/cli.ts'
import { startServe } from '../helpers/serve-process.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { openTestDomain, testClock, type TestDomain } from '../helpers/test-app.ts'

const DAY = 86_400_000

interface EventView {
  at: string
  event: string
  app_id: string | null
  user_id: string | null
  screen_name: string | null
  address: string | null
  detail: Record<string, unknown> | null
}

/** A refusal as a person sees it: exit 1, one line on stderr, nothing on stdout. */
function assertRefusal(result: CliResult, message: RegExp): void {
  assert.equal(result.code, 1, result.stderr)
  const lines = result.stderr.trimEnd().split('\n')
  assert.equal(lines.length, 1, `one line on stderr, got:\n${result.stderr}`)
  assert.match(lines[0]!, /^latchkey: /)
  assert.match(lines[0]!, message)
  assert.equal(result.stdout, '')
}

describe('latchkey audit', () => {
  const clock = testClock(Date.now() - 3 * DAY)
  let t: TestDomain
  let env: Record<string, string>
  let alice: UserRecord
  let app: AppRecord
  let other: AppRecord
  let otherOwner: string

  /** Runs `latchkey audit … --json`; expects exactly one JSON document. */
  async function audit(...args: string[]): Promise<EventView[]> {
    const result = await runCli(['audit', ...args, '--json'], env)
    assert.equal(result.code, 0, result.stderr)
    return JSON.parse(result.stdout) as EventView[]
  }

  before(async () => {
    t = await openTestDomain({ clock })
    env = { LATCHKEY_DATABASE_URL: t.dbPath }
    // Three days ago: alice, her app and a stranger's app; a day and a half ago, a failed sign-in from afar.
    alice = (await makeUser(t.domain, { screenName: 'alice' })).user
    app = await makeApp(t.domain, { owner: alice, name: 'Alice App' })
    other = await makeApp(t.domain)
    otherOwner = (await t.domain.stores.users.findById(other.ownerId))!.screenName
    clock.advance(1.5 * DAY)
    await t.domain.stores.audit.record({
      atMs: clock.nowMs(),
      event: 'sign_in.failed',
      appId: app.id,
      userId: alice.id,
      address: '198.51.100.9\u001b[31m',
      detail: { reason: 'credentials' },
    })
    clock.advance(1.5 * DAY)
    await updateApp(t.domain, app.id, { isSuspended: true })
    // Now, by the real command: alice's app gets new keys.
    const rotated = await runCli(['app', 'rotate-keys', app.id, '--json'], env)
    assert.equal(rotated.code, 0, rotated.stderr)
    app = { ...app, consumerKey: (JSON.parse(rotated.stdout) as { consumer_key: string }).consumer_key }
  })
  after(() => t.close())

  test('--json lists every event newest first, with who, which app, when and from where', async () => {
    const events = await audit()
    assert.deepEqual(
      events.map((e) => [e.event, e.app_id, e.screen_name]),
      [
        ['app.keys_rotated', app.id, 'alice'],
        ['app.updated', app.id, 'alice'],
        ['sign_in.failed', app.id, 'alice'],
        // These four share one millisecond: the last recorded comes first.
        ['app.created', other.id, otherOwner],
        ['user.created', null, otherOwner],
        ['app.created', app.id, 'alice'],
        ['user.created', null, 'alice'],
      ],
    )
    const failed = events[2]!
    assert.equal(failed.user_id, alice.id)
    assert.equal(failed.address, '198.51.100.9\u001b[31m')
    assert.deepEqual(failed.detail, { reason: 'credentials' })
    assert.ok(Date.parse(events[0]!.at) > Date.now() - 60_000, 'the CLI event carries the time it happened')
    assert.deepEqual(events[1]!.detail, { fields: ['suspended'], suspended: true })
    assert.equal(events[0]!.address, null, 'the CLI has no client address')
  })

  test('--app takes an app id or a consumer key; --user a screen name', async () => {
    const byId = await audit('--app', app.id)
    assert.deepEqual(byId.map((e) => e.event), ['app.keys_rotated', 'app.updated', 'sign_in.failed', 'app.created'])
    assert.deepEqual(await audit('--app', app.consumerKey), byId)
    const byUser = await audit('--user', '@Alice')
    assert.deepEqual(byUser.map((e) => e.event), ['app.keys_rotated', 'app.updated', 'sign_in.failed', 'app.created', 'user.created'])
    assert.deepEqual((await audit('--app', other.id, '--user', 'alice')).length, 0)
  })

  test('--since takes a duration or an ISO date or date-time; --limit keeps the newest', async () => {
    assert.deepEqual((await audit('--since', '1h')).map((e) => e.event), ['app.keys_rotated', 'app.updated'])
    assert.deepEqual((await audit('--since', '2d')).map((e) => e.event), ['app.keys_rotated', 'app.updated', 'sign_in.failed'])
    const halfwayIso = new Date(Date.now() - 2.5 * DAY).toISOString()
    assert.equal((await audit('--since', halfwayIso)).length, 3)
    assert.equal((await audit('--since', '2000-01-01')).length, 7)
    assert.deepEqual((await audit('--limit', '2', '--app', app.id)).map((e) => e.event), ['app.keys_rotated', 'app.updated'])
  })

  test('without --json: one line per event, control characters escaped; "no events" when none match', async () => {
    const result = await runCli(['audit', '--app', app.id], env)
    assert.equal(result.code, 0, result.stderr)
    const lines = result.stdout.trimEnd().split('\n')
    assert.equal(lines.length, 4)
    assert.match(lines[2]!, /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}sign_in\.failed +app=\d+ {2}user=alice {2}from=198\.51\.100\.9\\u001b\[31m {2}\{"reason":"credentials"\}$/)
    assert.ok(!result.stdout.includes('\u001b'), 'no raw escape character reaches the terminal')
    const none = await runCli(['audit', '--since', '2999-01-01'], env)
    assert.equal(none.stdout, 'no events\n')
  })

  test('the history of a deleted app stays, found by its id', async () => {
    const doomed = await makeApp(t.domain, { owner: alice, name: 'Short-lived' })
    const deleted = await runCli(['app', 'delete', doomed.id], env)
    assert.equal(deleted.code, 0, deleted.stderr)
    assert.deepEqual((await audit('--app', doomed.id)).map((e) => [e.event, e.detail]), [
      ['app.deleted', { name: 'Short-lived' }],
      ['app.created', { name: 'Short-lived', type: 'web' }],
    ])
  })

  describe('refuses bad input with one line', { concurrency: true }, () => {
    const cases: Array<[string, string[], RegExp]> = [
      ['a --since that is neither a duration nor a date', ['--since', 'yesterday'], /--since.*15m/],
      ['a --since with an unknown unit', ['--since', '3y'], /--since/],
      ['a --since that is no real date', ['--since', '2025-13-45'], /--since/],
      ['a --limit of zero', ['--limit', '0'], /--limit/],
      ['a --limit that is no number', ['--limit', 'lots'], /--limit/],
      ['an unknown user', ['--user', 'nobody'], /no user with id or screen name nobody/],
      ['an unknown consumer key', ['--app', 'no-such-key'], /no app with id or consumer key no-such-key/],
    ]
    for (const [name, args, message] of cases) {
      test(name, async () => assertRefusal(await runCli(['audit', ...args], env), message))
    }
  })
})

describe('parseSince', () => {
  const now = Date.UTC(2025, 5, 15, 12, 0, 0)
  test('reads durations back from now and ISO dates and date-times', () => {
    assert.equal(parseSince('30s', now), now - 30_000)
    assert.equal(parseSince('15m', now), now - 15 * 60_000)
    assert.equal(parseSince('2h', now), now - 2 * 3_600_000)
    assert.equal(parseSince('7d', now), now - 7 * DAY)
    assert.equal(parseSince('1w', now), now - 7 * DAY)
    assert.equal(parseSince('2025-06-01', now), Date.UTC(2025, 5, 1))
    assert.equal(parseSince('2025-06-01T10:30:00Z', now), Date.UTC(2025, 5, 1, 10, 30))
    assert.equal(parseSince('2025-06-01T10:30:00+02:00', now), Date.UTC(2025, 5, 1, 8, 30))
  })
  test('refuses anything else', () => {
    for (const text of ['', 'now', '15', 'm', '-5m', '1.5h', 'June 1', '2025/06/01', '2025-06-01 junk']) {
      assert.throws(() => parseSince(text, now), /duration/, text)
    }
  })
})

describe('latchkey keys records master-key rotation and retirement', () => {
  let t: TestDomain
  let dir: string
  let env: Record<string, string>
  before(async () => {
    t = await openTestDomain()
    dir = mkdtempSync(join(tmpdir(), 'latchkey-audit-keys-'))
    const keyFile = join(dir, 'master-key.json')
    writeKeyringFile(keyFile, newKeyring())
    env = { LATCHKEY_DATABASE_URL: t.dbPath, LATCHKEY_MASTER_KEY: '', LATCHKEY_MASTER_KEY_FILE: keyFile }
  })
  after(async () => {
    await t.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test('keys rotate and keys retire each leave a row naming the key, never the key itself', async () => {
    const keyFile = env.LATCHKEY_MASTER_KEY_FILE!
    const oldKeyId = (JSON.parse(readFileSync(keyFile, 'utf8')) as { activeKeyId: string }).activeKeyId
    const rotated = await runCli(['keys', 'rotate', '--json'], env)
    assert.equal(rotated.code, 0, rotated.stderr)
    const newKeyId = (JSON.parse(rotated.stdout) as { active_key_id: string }).active_key_id
    // Retiring waits until every instance can have read the changed key file.
    await sleep(3_100)
    const retired = await runCli(['keys', 'retire', oldKeyId], env)
    assert.equal(retired.code, 0, retired.stderr)
    const result = await runCli(['audit', '--json'], env)
    assert.equal(result.code, 0, result.stderr)
    const events = JSON.parse(result.stdout) as EventView[]
    assert.deepEqual(events.map((e) => [e.event, e.detail?.key_id]), [
      ['master_key.retired', oldKeyId],
      ['master_key.rotated', newKeyId],
    ])
    const keyring = JSON.parse(readFileSync(keyFile, 'utf8')) as { keys: Record<string, string>; indexKey: string }
    for (const secret of [...Object.values(keyring.keys), keyring.indexKey]) assert.ok(!result.stdout.includes(secret))
  })
})

describe('latchkey audit prune', () => {
  const clock = testClock(Date.now() - 10 * DAY)
  let t: TestDomain
  let env: Record<string, string>
  before(async () => {
    t = await openTestDomain({ clock })
    env = { LATCHKEY_DATABASE_URL: t.dbPath }
    await makeUser(t.domain, { screenName: 'old_timer' })
    clock.advance(8 * DAY)
    await makeUser(t.domain, { screenName: 'recent' })
  })
  after(() => t.close())

  /** The trail as the CLI's JSON shows it, read from the database (a CLI start per look would cost seconds). */
  const trailOf = async (domain: TestDomain['domain']) =>
    (await listAuditEvents(domain, { limit: 1000 })).map((e) => ({ event: e.event, screen_name: e.screenName, detail: e.detail }))
  const events = () => trailOf(t.domain)

  test('deletes the rows written before the time, says how many, and leaves a row saying where the trail was cut', async () => {
    const pruned = await runCli(['audit', 'prune', '--before', '5d', '--json'], env)
    assert.equal(pruned.code, 0, pruned.stderr)
    const answer = JSON.parse(pruned.stdout) as { deleted: number; before: string }
    assert.equal(answer.deleted, 1, 'the old user.created row')
    assert.ok(Math.abs(Date.parse(answer.before) - (Date.now() - 5 * DAY)) < 60_000, answer.before)
    const left = await events()
    assert.deepEqual(left.map((e) => [e.event, e.screen_name]), [['audit.pruned', null], ['user.created', 'recent']])
    assert.deepEqual(left[0]!.detail, { before: answer.before, deleted: 1, via: 'cli' })
    const again = await runCli(['audit', 'prune', '--before', '5d'], env)
    assert.match(again.stdout, /^deleted 0 audit rows written before \d{4}-\d\d-\d\dT[\d:.]+Z\n$/)
  })

  test('serve deletes the rows older than --audit-retention when it starts, keeps the younger ones, and says so in the trail', async () => {
    const freshClock = testClock(Date.now() - 3 * DAY)
    const fresh = await openTestDomain({ clock: freshClock })
    try {
      await makeUser(fresh.domain, { screenName: 'three_days' })
      freshClock.advance(2 * DAY)
      await makeUser(fresh.domain, { screenName: 'one_day' })
      const serveEnv = { LATCHKEY_DATABASE_URL: fresh.dbPath }
      const trail = () => trailOf(fresh.domain)
      const pruning = await startServe(['--dev', '--port', '0', '--audit-retention', '2'], serveEnv)
      try {
        let rows = await trail()
        for (let i = 0; i < 50 && !rows.some((e) => e.event === 'audit.pruned'); i++) {
          await sleep(100)
          rows = await trail()
        }
        assert.ok(!rows.some((e) => e.screen_name === 'three_days'), 'older than 2 days: deleted')
        assert.ok(rows.some((e) => e.screen_name === 'one_day'), 'within 2 days: kept')
        assert.deepEqual(rows.find((e) => e.event === 'audit.pruned')?.detail?.via, 'retention')
      } finally {
        await pruning.stop()
      }
    } finally {
      await fresh.close()
    }
  })

  test('a time it cannot read, or one in the future, is refused and deletes nothing', async () => {
    const before = (await events()).length
    assertRefusal(await runCli(['audit', 'prune', '--before', 'yesterday'], env), /--before.*duration such as 15m/)
    assertRefusal(await runCli(['audit', 'prune', '--before', '2999-01-01'], env), /must not be in the future/)
    assertRefusal(await runCli(['audit', 'prune'], env), /--before/)
    assert.equal((await events()).length, before)
  })
})
