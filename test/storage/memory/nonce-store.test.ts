import assert from 'node:assert/strict'
import { test } from 'node:test'
import { StorageUnavailableError } from '../../../src/storage/errors.ts'
import { createMemoryNonceStore } from '../../../src/storage/memory/nonce-store.ts'

const NOW = 1_750_000_000_000

test('a full nonce store refuses a new nonce with StorageUnavailableError rather than forget a live one', async () => {
  const nonces = createMemoryNonceStore({ capacity: 3 })
  for (const nonce of ['a', 'b', 'c']) assert.equal(await nonces.remember('ck', nonce, 300, NOW), true)
  await assert.rejects(nonces.remember('ck', 'd', 300, NOW), StorageUnavailableError)
  assert.equal(await nonces.remember('ck', 'a', 300, NOW), false, 'a replay is still recognised when full')
})

test('a full nonce store has room again once its nonces have expired', async () => {
  const nonces = createMemoryNonceStore({ capacity: 2 })
  await nonces.remember('ck', 'a', 300, NOW)
  await nonces.remember('ck', 'b', 300, NOW)
  assert.equal(await nonces.remember('ck', 'c', 300, NOW + 300_001), true)
  assert.equal(nonces.size(), 1)
})

test('an expired nonce behind a longer-lived one does not count against the capacity', async () => {
  const nonces = createMemoryNonceStore({ capacity: 2 })
  assert.equal(await nonces.remember('ck', 'stamped-ahead', 630, NOW), true)
  assert.equal(await nonces.remember('ck', 'on-time', 330, NOW), true)
  // At NOW + 331 s only the first is live: the second, behind it, must make room.
  assert.equal(await nonces.remember('ck', 'next', 330, NOW + 331_000), true)
  assert.equal(nonces.size(), 2)
  assert.equal(await nonces.remember('ck', 'stamped-ahead', 630, NOW + 331_000), false, 'the longer-lived one is still a replay')
  await assert.rejects(nonces.remember('ck', 'one-too-many', 330, NOW + 331_000), StorageUnavailableError, 'both entries are live now')
})
