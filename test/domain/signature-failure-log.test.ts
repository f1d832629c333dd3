import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { FAILURES_KEPT, createFailureLog, type SignatureFailure } from '../../src/domain/console/signature-failures.ts'
import type { SignatureFailureStore } from '../../src/storage/types.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-app.ts'

const failure = (atMs: number, url = 'https://x.example/'): SignatureFailure => ({ atMs, method: 'GET', url, reason: 'bad_signature', baseString: 'GET&…' })

let t: TestDomain
before(async () => {
  t = await openTestDomain()
})
after(() => t.close())

test('the log keeps the last 50 of each app, newest first, apart from the other apps, in the database', async () => {
  const [one, two] = [await makeApp(t.domain), await makeApp(t.domain)]
  const log = createFailureLog(t.domain.stores.signatureFailures)
  for (let i = 0; i < FAILURES_KEPT + 10; i++) {
    log.note(one.id, failure(1_000 + i, `https://x.example/${i}`))
    await log.settled()
  }
  log.note(two.id, failure(5_000))
  await log.settled()
  // Another log over the same store (another instance) sees the same rows.
  const elsewhere = createFailureLog(t.domain.stores.signatureFailures)
  const kept = await elsewhere.recent(one.id, 2_000)
  assert.equal(kept.length, FAILURES_KEPT)
  assert.equal(kept[0]?.url, `https://x.example/${FAILURES_KEPT + 9}`)
  assert.equal(kept.at(-1)?.url, 'https://x.example/10')
  assert.equal((await elsewhere.recent(two.id, 6_000)).length, 1)
})

test('a failure is kept for 24 hours, then gone', async () => {
  const app = await makeApp(t.domain)
  const log = createFailureLog(t.domain.stores.signatureFailures)
  log.note(app.id, failure(0))
  await log.settled()
  const hours = (n: number) => n * 3_600_000
  assert.deepEqual((await log.recent(app.id, hours(23))).map((f) => f.atMs), [0])
  assert.deepEqual((await log.recent(app.id, hours(24) - 1)).map((f) => f.atMs), [0])
  assert.deepEqual(await log.recent(app.id, hours(24)), [])
})

test('note returns before the write, and past the bound of pending writes it drops instead of queueing', async () => {
  const app = await makeApp(t.domain)
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const real = t.domain.stores.signatureFailures
  // The database as slow as it can be: no write finishes until the gate opens.
  const slow: SignatureFailureStore = { ...real, record: async (...args) => gate.then(() => real.record(...args)) }
  const log = createFailureLog(slow, { maxPending: 3 })
  for (let i = 0; i < 5; i++) log.note(app.id, failure(10_000 + i))
  assert.equal(log.dropped(), 2, 'the fourth and fifth are dropped while three wait')
  assert.deepEqual(await log.recent(app.id, 20_000), [], 'nothing is written yet, and nothing waited for it')
  release()
  await log.settled()
  assert.deepEqual((await log.recent(app.id, 20_000)).map((f) => f.atMs), [10_002, 10_001, 10_000])
  log.note(app.id, failure(10_010))
  await log.settled()
  assert.equal(log.dropped(), 2, 'room again once the writes settled')
  assert.equal((await log.recent(app.id, 20_000)).length, 4)
})

test('a write that fails is ignored: the log goes on', async () => {
  const log = createFailureLog(t.domain.stores.signatureFailures)
  // No such app: the foreign key refuses the row.
  log.note('999999999', failure(1))
  await log.settled()
  assert.equal(log.dropped(), 0)
})
