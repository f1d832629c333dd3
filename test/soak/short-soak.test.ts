import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { test } from 'node:test'
import { REPO_ROOT } from '../helpers/cli.ts'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/backends.ts'

interface SoakSummary {
  ok: boolean
  reasons: string[]
  rows: Array<{ perSecond: Record<string, number>; failures: Record<string, number>; stats?: { nonceEntries: number | null } }>
  drained?: { nonceEntries: number | null }
}

/** `npm run soak` itself, on this pass's backend: its exit code and its SOAK summary. */
function runSoak(args: string[]): Promise<{ code: number | null; summary: SoakSummary | undefined; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/soak/run.ts', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      const line = output.split('\n').find((l) => l.startsWith('SOAK '))
      resolve({ code, summary: line ? (JSON.parse(line.slice(5)) as SoakSummary) : undefined, output })
    })
  })
}

/** Half a minute in npm test (two 15 s reports, the 20 s nonce life crossed); CI's long form (npm run test:long) sets more. */
const MINUTES = Number(process.env.LATCHKEY_SOAK_MINUTES ?? 0.5)

// The short form of the soak: a 5-second timestamp bound, so a nonce lives 5 + 5 + up to 10 s (its
// bucket): each minute of full-speed load crosses the window about three times.
test(`${MINUTES} min at full speed with a 5 s nonce window: no 503, no other non-2xx, nonce entries bounded and given back`, { timeout: (MINUTES * 60 + 240) * 1000 }, async () => {
  const backend = TEST_DATABASE_URL && TEST_REDIS_URL ? ['--database', TEST_DATABASE_URL, '--redis', TEST_REDIS_URL] : []
  const { code, summary, output } = await runSoak(['--minutes', String(MINUTES), '--report-seconds', '15', '--stats-seconds', '2', '--connections', '8', '--timestamp-skew', '5', '--drain-seconds', '60', ...backend])
  assert.ok(summary, output)
  assert.deepEqual(summary.rows.flatMap((row) => Object.keys(row.failures)), [], output)
  assert.equal(code, 0, output)
  const signedPerRow = summary.rows.map((row) => ((row.perSecond.verify ?? 0) + (row.perSecond.request_token ?? 0)) * 15)
  assert.ok(signedPerRow.every((n) => n > 0), `a 15 s report with no signed request answered (signed per report: ${signedPerRow.join(', ')})\n${output}`)
  const entries = summary.rows.map((row) => row.stats?.nonceEntries ?? null)
  if (entries.every((n) => n === null)) return // Redis: keys expire by PX (checked in test/storage/redis.test.ts)
  // A nonce lives at most 20 s here: the store holds at most what the last two 15 s reports signed.
  entries.forEach((held, i) => {
    const recent = signedPerRow[i]! + (signedPerRow[i - 1] ?? 0)
    assert.ok((held ?? 0) <= recent * 1.1 + 200, `report ${i}: ${held} entries, ${Math.round(recent)} signed in the last 30 s`)
  })
  assert.equal(summary.drained?.nonceEntries, 0, 'once the load stops and the window passes, the store is empty')
})
