import assert from 'node:assert/strict'
import { test } from 'node:test'
import { StorageUnavailableError } from '../../../src/storage/errors.ts'
import { createMemoryNonceStore } from '../../../src/storage/memory/nonce-store.ts'
import { DEFAULT_NONCE_CAPACITY } from '../../../src/storage/nonce-share.ts'
import { HashSet64 } from '../../../src/storage/memory/hash-set64.ts'
import { expiryOf, nonceUse } from '../../helpers/nonce-use.ts'

const NOW = Date.now()
const TS = Math.floor(NOW / 1000)
const EPOCH = NOW - 60_000
const use = (consumerKey: string, nonce: string, timestampSeconds = TS) => nonceUse(consumerKey, nonce, { timestampSeconds })

test('a full nonce store refuses a new nonce with StorageUnavailableError rather than forget a live one', async () => {
  const nonces = createMemoryNonceStore({ capacity: 3, epochMs: EPOCH })
  for (const nonce of ['a', 'b', 'c']) assert.equal(await nonces.remember(use('ck', nonce), expiryOf(use('ck', nonce)), NOW), 'fresh')
  await assert.rejects(nonces.remember(use('ck', 'd'), expiryOf(use('ck', 'd')), NOW), StorageUnavailableError)
  assert.equal(await nonces.remember(use('ck', 'a'), expiryOf(use('ck', 'a')), NOW), 'replayed', 'a replay is still recognised when full')
})

test('once its window has passed, a nonce is forgotten whole bucket at a time and the memory is given back', async () => {
  const nonces = createMemoryNonceStore({ capacity: 2, epochMs: EPOCH })
  await nonces.remember(use('ck', 'a'), expiryOf(use('ck', 'a')), NOW)
  await nonces.remember(use('ck', 'b'), expiryOf(use('ck', 'b')), NOW)
  assert.ok(nonces.byteCount() > 0)
  const later = NOW + 350_000
  const next = use('ck', 'c', Math.floor(later / 1000))
  assert.equal(await nonces.remember(next, expiryOf(next), later), 'fresh')
  assert.equal(nonces.entryCount(later), 1)
  assert.equal(nonces.entryCount(later + 350_000), 0)
  assert.equal(nonces.byteCount(), 0, 'no table is left once every entry has expired')
})

test('a nonce stamped ahead lives longer than one stamped on time, and each is a replay for its whole life', async () => {
  const nonces = createMemoryNonceStore({ capacity: 10, epochMs: EPOCH })
  const ahead = use('ck', 'ahead', TS + 300)
  const onTime = use('ck', 'on-time')
  assert.equal(await nonces.remember(ahead, expiryOf(ahead), NOW), 'fresh')
  assert.equal(await nonces.remember(onTime, expiryOf(onTime), NOW), 'fresh')
  const at = NOW + 340_000
  assert.equal(nonces.entryCount(at), 1, 'the on-time one has expired')
  assert.equal(await nonces.remember(ahead, expiryOf(ahead), at), 'replayed', 'the one stamped ahead is still a replay')
})

test('a request stamped before the store was created is before its epoch', async () => {
  const nonces = createMemoryNonceStore({ epochMs: NOW })
  const before = use('ck', 'n', Math.floor(NOW / 1000) - 1)
  assert.equal(await nonces.remember(before, expiryOf(before), NOW), 'before-epoch')
  assert.equal(nonces.entryCount(NOW), 0, 'nothing is remembered for it')
  const since = use('ck', 'n', Math.ceil(NOW / 1000))
  assert.equal(await nonces.remember(since, expiryOf(since), NOW), 'fresh')
})

test('near capacity, the app holding more than its share is refused and the others are still served', async () => {
  const nonces = createMemoryNonceStore({ capacity: 100, epochMs: EPOCH })
  let accepted = 0
  for (let i = 0; i < 100; i++) {
    const flood = use('flooder', `n${i}`)
    try {
      await nonces.remember(flood, expiryOf(flood), NOW)
      accepted++
    } catch (error) {
      assert.ok(error instanceof StorageUnavailableError)
    }
  }
  assert.equal(accepted, 90, 'one app alone fills 90 % of the store')
  for (let i = 0; i < 10; i++) {
    const other = use('other', `n${i}`)
    assert.equal(await nonces.remember(other, expiryOf(other), NOW), 'fresh', `the other app's request ${i}`)
  }
  const more = use('flooder', 'more')
  await assert.rejects(nonces.remember(more, expiryOf(more), NOW), StorageUnavailableError)
})

test('a set of 64-bit hashes finds every one it was given and no other', () => {
  const set = new HashSet64()
  const words = Array.from({ length: 200_000 }, (_, i) => [(i * 2654435761) >>> 0, (i * 40503 + 1) >>> 0] as const)
  for (const [hi, lo] of words) assert.equal(set.add(hi, lo), true)
  assert.equal(set.size, words.length)
  for (const [hi, lo] of words) assert.equal(set.has(hi, lo), true)
  for (const [hi, lo] of words.slice(0, 1000)) assert.equal(set.add(hi, lo), false)
  assert.equal(set.has(12345, 0), false)
})

test('a million nonces cost at most 16 bytes each, so the default capacity fits in 200 MB', async () => {
  const nonces = createMemoryNonceStore({ epochMs: EPOCH })
  const count = 1_000_000
  // At full load each 10 s bucket holds about 14 M / 34 ≈ 410,000 entries (a 340 s life): a
  // million over 20 s of timestamps fills two or three buckets as full as that.
  for (let i = 0; i < count; i++) {
    const entry = use('ck', `n${i}`, TS + Math.floor((i * 20) / count))
    await nonces.remember(entry, expiryOf(entry), NOW)
  }
  assert.equal(nonces.entryCount(NOW), count)
  const bytesPerEntry = nonces.byteCount() / count
  assert.ok(bytesPerEntry <= 16, `${bytesPerEntry.toFixed(1)} bytes per entry`)
  assert.ok((DEFAULT_NONCE_CAPACITY * bytesPerEntry) / 1e6 < 200, `${((DEFAULT_NONCE_CAPACITY * bytesPerEntry) / 1e6).toFixed(0)} MB at the default capacity`)
  assert.ok(DEFAULT_NONCE_CAPACITY * 0.9 >= 12_000_000, 'one app alone may hold 12 million')
})

test('a nonce is a replay until its own expiry, wherever that falls in its 10 s bucket: never dropped at the bucket\'s start', async () => {
  const nonces = createMemoryNonceStore({ capacity: 10, epochMs: EPOCH })
  // A short window (5 s) whose expiry falls late in a bucket: the bucket starts well before it.
  const bucketStart = Math.ceil(NOW / 10_000) * 10_000 + 10_000
  const expiresAtMs = bucketStart + 9_000
  const entry = use('ck', 'short', Math.floor((expiresAtMs - 5_000) / 1000))
  assert.equal(await nonces.remember(entry, expiresAtMs, expiresAtMs - 5_000), 'fresh')
  // One in the bucket before, whose end (this bucket's start) makes the store look for expired buckets.
  const earlier = use('ck', 'earlier', Math.floor((bucketStart - 5_000) / 1000))
  assert.equal(await nonces.remember(earlier, bucketStart - 1, bucketStart - 6_000), 'fresh')
  for (const at of [bucketStart - 1, bucketStart, bucketStart + 1, expiresAtMs - 1]) {
    assert.equal(await nonces.remember(entry, expiresAtMs, at), 'replayed', `at ${at - bucketStart} ms into its bucket`)
  }
  assert.equal(nonces.entryCount(expiresAtMs - 1), 1, 'the earlier one has gone with its bucket; this one stays')
  assert.equal(nonces.entryCount(bucketStart + 10_000), 0, 'gone once its bucket has ended')
})

test('a nonce counts against its app only while it lives: once its bucket has gone, the app holds that many fewer, and an app holding none is not counted among the apps', async () => {
  // Nearly full at 5 of 10: an app is refused when its holdings times the number of apps reach 5.
  const nonces = createMemoryNonceStore({ capacity: 10, nearFull: 0.5, epochMs: EPOCH })
  const bucketStart = Math.ceil(NOW / 10_000) * 10_000 + 10_000
  const early = bucketStart + 1_000
  const late = bucketStart + 25_000
  const remember = (app: string, nonce: string, expiresAtMs: number, atMs: number) => nonces.remember(use(app, nonce), expiresAtMs, atMs)
  for (const [app, nonce, expiresAtMs] of [
    ['a', 'a1', early],
    ['a', 'a2', early],
    ['b', 'b1', early],
    ['b', 'b2', late],
  ] as const) {
    assert.equal(await remember(app, nonce, expiresAtMs, bucketStart), 'fresh', nonce)
  }
  // The early bucket has ended: a holds none and b one; then b takes two more and c two.
  const afterEarly = bucketStart + 12_000
  assert.equal(nonces.entryCount(afterEarly), 1)
  for (const [app, nonce] of [
    ['b', 'b3'],
    ['b', 'b4'],
    ['c', 'c1'],
    ['c', 'c2'],
  ] as const) {
    assert.equal(await remember(app, nonce, late, afterEarly), 'fresh', nonce)
  }
  // 5 held: b 3, c 2, and only b and c are counted.
  assert.equal(await remember('c', 'c3', late, afterEarly), 'fresh', 'c: 2 held × 2 apps is under 5')
  await assert.rejects(remember('b', 'b5', late, afterEarly), /consumer key b holds 3 of 6 nonces/, 'b: 3 held × 2 apps')
  assert.equal(await remember('a', 'a3', late, afterEarly), 'fresh', 'a holds none')
})

test('a request stamped in the very millisecond of the epoch is not before it', async () => {
  const epochMs = Math.floor(NOW / 1000) * 1000 - 5_000
  const nonces = createMemoryNonceStore({ epochMs })
  const at = use('ck', 'at-epoch', epochMs / 1000)
  assert.equal(await nonces.remember(at, expiryOf(at), NOW), 'fresh')
  const before = use('ck', 'before-epoch', epochMs / 1000 - 1)
  assert.equal(await nonces.remember(before, expiryOf(before), NOW), 'before-epoch')
})

test('a hash with one of its two words 0 is a hash like any other: kept, found, and never overwritten by the next in its probe sequence', () => {
  const set = new HashSet64()
  // Each pair shares its low word (the first slot it probes); only 0,0 marks an empty slot.
  const words = [
    [0, 5],
    [9, 5],
    [7, 0],
    [8, 0],
    [0, 1024 + 5],
  ] as const
  for (const [hi, lo] of words) assert.equal(set.add(hi, lo), true, `${hi},${lo} added`)
  for (const [hi, lo] of words) {
    assert.equal(set.has(hi, lo), true, `${hi},${lo} found`)
    assert.equal(set.add(hi, lo), false, `${hi},${lo} is already there`)
  }
  assert.equal(set.size, words.length)
})
