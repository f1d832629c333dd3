import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { FAILURES_KEPT, createFailureLog, type SignatureFailure } from '../../src/domain/console/signature-failures.ts'
import type { SignatureFailureStore } from '../../src/storage/types.ts'
import { createDomainDeps } from '../../src/composition/root.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { recordingObserver } from '../helpers/recording-observer.ts'
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
  const lost: string[] = []
  const log = createFailureLog(slow, { maxPending: 3, onLost: (reason) => void lost.push(reason) })
  for (let i = 0; i < 5; i++) log.note(app.id, failure(10_000 + i))
  assert.equal(log.dropped(), 2, 'the fourth and fifth are dropped while three wait')
  assert.deepEqual(lost, ['dropped', 'dropped'], 'each drop is reported')
  assert.deepEqual(await log.recent(app.id, 20_000), [], 'nothing is written yet, and nothing waited for it')
  release()
  await log.settled()
  assert.deepEqual((await log.recent(app.id, 20_000)).map((f) => f.atMs), [10_002, 10_001, 10_000])
  log.note(app.id, failure(10_010))
  await log.settled()
  assert.equal(log.dropped(), 2, 'room again once the writes settled')
  assert.equal((await log.recent(app.id, 20_000)).length, 4)
})

test('a write that fails is reported as lost, and the log goes on', async () => {
  const app = await makeApp(t.domain)
  const lost: string[] = []
  const log = createFailureLog(t.domain.stores.signatureFailures, { onLost: (reason) => void lost.push(reason) })
  // No such app: the foreign key refuses the row.
  log.note('999999999', failure(1))
  await log.settled()
  assert.deepEqual(lost, ['write_failed'])
  assert.equal(log.dropped(), 0)
  log.note(app.id, failure(2))
  await log.settled()
  assert.deepEqual(lost, ['write_failed'], 'a write that succeeds reports nothing')
  assert.deepEqual((await log.recent(app.id, 3)).map((f) => f.atMs), [2])
})

test("the domain's failure log reports what it loses to the domain's observer (the server's metrics)", async () => {
  const observer = recordingObserver()
  const refusing: SignatureFailureStore = { ...t.domain.stores.signatureFailures, record: () => Promise.reject(new Error('disk full')) }
  const storage = { stores: { ...t.domain.stores, signatureFailures: refusing }, runtime: t.domain.runtime }
  const deps = createDomainDeps(storage, t.domain.settings, t.domain.clock, observer)
  const app = await makeApp(t.domain)
  deps.signatureFailures!.note(app.id, failure(1))
  await deps.signatureFailures!.settled()
  assert.deepEqual(observer.told, ['lost:write_failed'])
})
