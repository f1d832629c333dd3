import assert from 'node:assert/strict'
import fc from 'fast-check'
import Sqlite from 'better-sqlite3'
import { isPostgresUrl } from '../../../src/storage/urls.ts'
import { runSql } from '../backends.ts'
import type { Fixture } from './fixture.ts'
import { exchange, requestBytes, type Answer, type Attempt } from './raw-exchange.ts'

/**
 * Count: LATCHKEY_FUZZ_RUNS requests in all, half to each listener (the admin API's,
 * test/admin/hostile-requests.test.ts; the pages', test/pages/console/hostile-requests.test.ts);
 * `npm test` runs the default, `npm run test:long` (CI) 25,000.
 */
const RUNS = Number(process.env.LATCHKEY_FUZZ_RUNS ?? 1500)
export const ADMIN_RUNS = Math.ceil(RUNS / 2)
export const PAGE_RUNS = RUNS - ADMIN_RUNS
/** Requests between two snapshots of the tables. */
const BATCH = 250
/** The same requests again: LATCHKEY_FUZZ_SEED=<the seed a run printed>. */
const SEED = Number(process.env.LATCHKEY_FUZZ_SEED ?? Date.now() % 2 ** 31)

// The rows a refused request must not write: none, except the audit trail's `sign_in.failed`. A
// wrong password (at sign-in on the console or the consent page, at a "confirm your password"
// prompt, at a password change) is audited by src/domain/sign-in.ts (`passwordAttempt`), throttled
// or not, on purpose: the trail shows password guessing. So the snapshot leaves out those audit rows
// (and counts them), and `browser_sessions.last_seen_at_ms`, which every page view of a live session
// moves forward. No other refusal is audited: the admin API audits only changes (src/admin/routes,
// changeWithAudit).

const SNAPSHOT_QUERIES: Record<string, string> = {
  users: 'select * from users order by id',
  apps: 'select * from apps order by id',
  request_tokens: 'select * from request_tokens order by 1',
  access_tokens: 'select * from access_tokens order by 1',
  bearer_tokens: 'select * from bearer_tokens order by 1',
  admin_tokens: 'select * from admin_tokens order by id',
  previous_consumer_keys: 'select * from previous_consumer_keys order by app_id',
  browser_sessions: 'select id, user_id, generation, created_at_ms, password_at_ms, user_agent, address, ended_at_ms from browser_sessions order by id',
  audit_events: "select * from audit_events where event <> 'sign_in.failed' order by id",
}

async function query(dbPath: string, text: string): Promise<unknown[]> {
  if (isPostgresUrl(dbPath)) return runSql(dbPath, text)
  const db = new Sqlite(dbPath, { readonly: true })
  try {
    return db.prepare(text).all()
  } finally {
    db.close()
  }
}

async function snapshot(dbPath: string): Promise<Map<string, string>> {
  const tables = new Map<string, string>()
  for (const [table, text] of Object.entries(SNAPSHOT_QUERIES)) tables.set(table, JSON.stringify(await query(dbPath, text)))
  return tables
}

const changedTables = (before: Map<string, string>, now: Map<string, string>) => [...before.keys()].filter((t) => before.get(t) !== now.get(t))

export async function failedSignIns(dbPath: string): Promise<number> {
  const [row] = (await query(dbPath, "select count(*) as n from audit_events where event = 'sign_in.failed'")) as Array<{ n: number | string }>
  return Number(row?.n ?? 0)
}

export interface Tally {
  sent: number
  authenticated: number
  byStatus: Map<number, number>
  byAim: Map<string, number>
  failures: string[]
  /** Batches after which a table had changed, with the writes of that batch. */
  writes: string[]
}

/**
 * `count` hostile requests to the listener at `port`, and what every fuzz asserts of them: each
 * answer as `check` wants it, no row written, every request sent. The tally, for what a fuzz asserts besides.
 */
export async function runHostile(f: Fixture, label: string, port: number, attempts: fc.Arbitrary<Attempt>, count: number, check: (a: Attempt, answer: Answer) => string[]): Promise<Tally> {
  const tally = await run(f, label, port, attempts, count, check)
  assert.deepEqual({ failures: tally.failures, writes: tally.writes }, { failures: [], writes: [] }, 'answers that are not as they must be; batches after which a row had been written')
  assert.equal(tally.sent, count)
  return tally
}

async function run(f: Fixture, label: string, port: number, attempts: fc.Arbitrary<Attempt>, count: number, check: (a: Attempt, answer: Answer) => string[]): Promise<Tally> {
  const tally: Tally = { sent: 0, authenticated: 0, byStatus: new Map(), byAim: new Map(), failures: [], writes: [] }
  let baseline = await snapshot(f.server.dbPath)
  let batch: string[] = []
  const started = Date.now()
  await fc.assert(
    fc.asyncProperty(attempts, async (attempt) => {
      let answer: Answer
      tally.sent++
      try {
        answer = await exchange(port, requestBytes(attempt, port))
      } catch (error) {
        // Bytes that hold no request may be dropped without an answer; anything else must be answered.
        if (!(attempt.raw && /no HTTP answer \(0 bytes\)/.test((error as Error).message))) tally.failures.push(`no answer (${(error as Error).message}) to ${attempt.aim}: ${attempt.how}`)
        return
      }
      if (attempt.authenticated) tally.authenticated++
      tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1)
      tally.byAim.set(attempt.aim, (tally.byAim.get(attempt.aim) ?? 0) + 1)
      const mistakes = check(attempt, answer)
      if (mistakes.length > 0 && tally.failures.length < 200) {
        const body = attempt.body ? ` body ${JSON.stringify(attempt.body.subarray(0, 160).toString('latin1'))}` : ''
        tally.failures.push(`${mistakes.join(', ')} — ${attempt.method} ${attempt.target.slice(0, 120)}${body} (${attempt.aim}: ${attempt.how}) → ${answer.status} ${answer.body.slice(0, 200)}`)
      }
      // The requests that could have written: not a GET, and not refused.
      if (attempt.method !== 'GET' && answer.status < 400) {
        const body = attempt.body ? ` body ${JSON.stringify(attempt.body.subarray(0, 300).toString('latin1'))}` : ''
        batch.push(`${attempt.method} ${attempt.target.slice(0, 80)}${body} (${attempt.how}) → ${answer.status}`)
      }
      if (tally.sent % BATCH === 0) {
        const now = await snapshot(f.server.dbPath)
        const changed = changedTables(baseline, now)
        if (changed.length > 0) tally.writes.push(`${changed.join(', ')} changed in batch ${tally.sent / BATCH}; its requests not refused:\n  ${batch.join('\n  ')}`)
        baseline = now
        batch = []
      }
    }),
    { numRuns: count, seed: SEED },
  )
  const changed = changedTables(baseline, await snapshot(f.server.dbPath))
  if (changed.length > 0) tally.writes.push(`${changed.join(', ')} changed in the last batch; its requests not refused:\n  ${batch.join('\n  ')}`)
  for (const line of [...tally.failures, ...tally.writes]) console.log(`✗ ${label}: ${line}`)
  const statuses = [...tally.byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`)
  console.log(`${label}: seed ${SEED}, ${tally.sent} requests (${tally.authenticated} with a live token or session) in ${((Date.now() - started) / 1000).toFixed(1)} s; answers ${statuses.join(', ')}`)
  return tally
}

