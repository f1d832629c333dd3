import assert from 'node:assert/strict'
import { test } from 'node:test'
import { FAILURES_KEPT, FAILURES_KEPT_MS, createMemoryFailureLog, type SignatureFailure } from '../../src/domain/console/signature-failures.ts'

const failure = (atMs: number, url = 'https://x.example/'): SignatureFailure => ({ atMs, method: 'GET', url, reason: 'bad_signature', baseString: 'GET&…' })

test('the failure log keeps the last 50 of each app, newest first, apart from the other apps', async () => {
  const log = createMemoryFailureLog()
  for (let i = 0; i < FAILURES_KEPT + 10; i++) await log.record('1', failure(1_000 + i, `https://x.example/${i}`))
  await log.record('2', failure(5_000))
  const kept = await log.recent('1', 2_000)
  assert.equal(kept.length, FAILURES_KEPT)
  assert.equal(kept[0]?.url, `https://x.example/${FAILURES_KEPT + 9}`)
  assert.equal(kept.at(-1)?.url, 'https://x.example/10')
  assert.equal((await log.recent('2', 6_000)).length, 1)
})

test('a failure is kept for 24 hours, then gone', async () => {
  const log = createMemoryFailureLog()
  await log.record('1', failure(0))
  assert.equal((await log.recent('1', FAILURES_KEPT_MS - 1)).length, 1)
  assert.equal((await log.recent('1', FAILURES_KEPT_MS)).length, 0)
})
