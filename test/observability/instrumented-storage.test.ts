import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { loadConfig } from '../../src/config/load.ts'
import { instrumentStorage, type StorageInstrument } from '../../src/observability/instrument-stores.ts'
import { createMetrics } from '../../src/observability/metrics.ts'
import { createObservability } from '../../src/observability/setup.ts'
import { openStorage } from '../../src/storage/open-stores.ts'
import type { Storage } from '../../src/storage/types.ts'
import { testKeyring, TEST_MASTER_KEY } from '../helpers/keys.ts'
import { everySample, seriesKey } from '../helpers/prometheus-text.ts'

/**
 * What an operator reads off the metrics before any traffic, and how each storage call is measured:
 * the observability module in one process, over a real SQLite file.
 */

const dir = mkdtempSync(join(tmpdir(), 'latchkey-instrumented-'))
let storage: Storage
before(async () => {
  storage = await openStorage({ keyring: testKeyring(), databaseUrl: join(dir, 'latchkey.sqlite'), settleNonceEpoch: false })
})
after(async () => {
  await storage.runtime.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Every call's operation name, in order, as an instrument that only records sees them. */
function recordingInstrument(): { instrument: StorageInstrument; calls: string[] } {
  const calls: string[] = []
  const instrument: StorageInstrument = (backend, operation) => (call) => {
    calls.push(`${backend} ${operation}`)
    return call()
  }
  return { instrument, calls }
}

/** The bucket bounds docs/metrics.md gives for a histogram, in its reference table. */
function documentedBuckets(metric: string): string[] {
  const row = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8')
    .split('\n')
    .find((line) => line.startsWith(`| \`${metric}\``))
  const listed = row?.match(/Buckets(?: \(`le`\))?: ([\d., ]+)\./)?.[1]
  assert.ok(listed, `docs/metrics.md lists the buckets of ${metric}`)
  return listed.split(', ')
}

const bucketsOf = (samples: Map<string, number>, name: string) =>
  [...samples.keys()].filter((key) => key.startsWith(`${name}_bucket{`)).map((key) => key.match(/le="([^"]+)"/)![1]!).filter((le) => le !== '+Inf')

describe('metrics before any traffic', () => {
  test('every series whose labels are known in advance shows at 0, so a rate() sees its first event', async () => {
    const samples = everySample(await createMetrics().scrape())
    const expected = [
      ...['ok', 'invalid_token', 'malformed'].map((result) => seriesKey('latchkey_bearer_verifications_total', { result })),
      ...['request_token', 'access_token', 'bearer_token'].map((kind) => seriesKey('latchkey_tokens_issued_total', { kind })),
      ...['ok', 'wrong_password', 'refused', 'throttled'].map((result) => seriesKey('latchkey_sign_in_attempts_total', { result })),
      ...['dropped', 'write_failed'].map((reason) => seriesKey('latchkey_signature_failures_lost_total', { reason })),
      ...['hit', 'miss', 'bypass'].map((result) => seriesKey('latchkey_validity_cache_lookups_total', { result })),
      seriesKey('latchkey_clock_skew_seconds_count'),
    ]
    for (const key of expected) assert.equal(samples.get(key), 0, key)
  })

  test('the histograms have the buckets docs/metrics.md gives, which dashboards and alerts rely on', async () => {
    const metrics = createMetrics()
    metrics.httpRoute('/healthz').record('GET', 200, 0.002)
    metrics.storageSeries('sqlite', 'apps.findById').observe(0.0003)
    const samples = everySample(await metrics.scrape())
    for (const name of ['latchkey_http_request_duration_seconds', 'latchkey_storage_operation_duration_seconds', 'latchkey_clock_skew_seconds']) {
      assert.deepEqual(bucketsOf(samples, name), documentedBuckets(name), name)
    }
  })

  test('the nonce store gauges read the store at each scrape: its entries now, and its capacity', async () => {
    const metrics = createMetrics()
    let held = 3
    metrics.watchNonceStore({ size: () => held, capacity: 500 })
    assert.equal(everySample(await metrics.scrape()).get(seriesKey('latchkey_nonce_store_entries')), 3)
    held = 7
    const samples = everySample(await metrics.scrape())
    assert.equal(samples.get(seriesKey('latchkey_nonce_store_entries')), 7)
    assert.equal(samples.get(seriesKey('latchkey_nonce_store_capacity')), 500)
  })
})

describe('storage calls measured', () => {
  test('each call is timed in seconds under its store and method, failed calls too', async () => {
    const observability = createObservability(loadConfig({ env: {}, flags: { dev: true, masterKey: TEST_MASTER_KEY, database: join(dir, 'unused.sqlite') } }), {
      isClusterWorker: false,
    })
    const measured = observability.observed.instrument(storage)
    const startedMs = performance.now()
    await storage.stores.nonces.remember({ nonce: 'held', timestampSeconds: Math.floor(Date.now() / 1000) + 5, consumerKey: 'ck', token: undefined }, Date.now() + 60_000, Date.now())
    assert.equal(await measured.stores.sessions.findById('no-such-session'), undefined)
    // A unit of work that throws: the transaction is measured all the same.
    await assert.rejects(
      measured.stores.transaction(async () => {
        throw new Error('refused by the test')
      }),
      /refused by the test/,
    )
    const elapsedSeconds = (performance.now() - startedMs) / 1000
    const samples = everySample(await observability.scrape())
    for (const operation of ['sessions.findById', 'transaction']) {
      const labels = { backend: 'sqlite', operation }
      const seconds = samples.get(seriesKey('latchkey_storage_operation_duration_seconds_sum', labels))!
      assert.ok(seconds > 0 && seconds <= elapsedSeconds, `${operation} took ${seconds} s of the ${elapsedSeconds} s its test ran`)
      const count = samples.get(seriesKey('latchkey_storage_operation_duration_seconds_count', labels))
      assert.equal(count, 1, operation)
      // A local SQLite call takes well under a second: in milliseconds it would land above every bucket.
      assert.equal(samples.get(seriesKey('latchkey_storage_operation_duration_seconds_bucket', { ...labels, le: '1' })), 1, operation)
    }
    assert.equal(samples.get(seriesKey('latchkey_nonce_store_capacity')), (storage.stores.nonces as unknown as { capacity: number }).capacity)
    const held = storage.stores.nonces.entryCount(Date.now())
    assert.ok(held && held > 0)
    assert.equal(samples.get(seriesKey('latchkey_nonce_store_entries')), held, 'the entries gauge reads the store')
  })

  test('database stores are measured under the database; nonces and limits only when they live in Redis', async () => {
    const inMemory = recordingInstrument()
    const local = instrumentStorage(storage, { database: 'sqlite', shared: 'memory' }, inMemory.instrument)
    await local.stores.signatureFailures.recent('no-app', Date.now(), { keep: 50, maxAgeMs: 60_000 })
    await local.stores.transaction((tx) => tx.users.findById('no-user'))
    const limiter = local.runtime.limiters.create('probe', 10, 60)
    await limiter.hit('key')
    assert.deepEqual(inMemory.calls, ['sqlite signatureFailures.recent', 'sqlite transaction', 'sqlite users.findById'])
    assert.equal(local.stores.nonces, storage.stores.nonces, 'nonces in memory are not wrapped')

    // Labelled as Redis (the memory stores stand in for it here): nonces and limiters are measured, entryCount is not.
    const shared = recordingInstrument()
    const redis = instrumentStorage(storage, { database: 'postgres', shared: 'redis' }, shared.instrument)
    await redis.stores.nonces.remember({ nonce: 'n', timestampSeconds: Math.floor(Date.now() / 1000) + 5, consumerKey: 'ck', token: undefined }, Date.now() + 60_000, Date.now())
    assert.equal(typeof redis.stores.nonces.entryCount(Date.now()), 'number')
    await redis.runtime.limiters.create('probe', 10, 60).hit('key')
    assert.deepEqual(shared.calls, ['redis nonces.remember', 'redis limiter.hit'])
    const capacity = (storage.stores.nonces as unknown as { capacity: number }).capacity
    assert.equal((redis.stores.nonces as unknown as { capacity: number }).capacity, capacity, 'what is not a method is kept as it is')
  })
})
