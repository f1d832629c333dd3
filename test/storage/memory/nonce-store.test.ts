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
