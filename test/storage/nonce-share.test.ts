import assert from 'node:assert/strict'
import { test } from 'node:test'
import { StorageUnavailableError } from '../../src/storage/errors.ts'
import { admitNonce, nonceRefusal } from '../../src/storage/nonce-share.ts'

test('admitNonce: full at the capacity; past the near-full count, over-share for an app holding its share of it; admitted otherwise', () => {
  const budget = { capacity: 100, nearFull: 0.9 }
  const cases: Array<[total: number, held: number, apps: number, expected: string]> = [
    [100, 0, 1, 'full'],
    [150, 0, 3, 'full'],
    [99, 0, 3, 'admitted'],
    [90, 90, 1, 'over-share'],
    [89, 89, 1, 'admitted'],
    // Three apps: the share is 30. Below the near-full count nobody is refused, whatever they hold.
    [50, 30, 3, 'admitted'],
    [90, 30, 3, 'over-share'],
    [90, 29, 3, 'admitted'],
    [95, 45, 2, 'over-share'],
    [95, 44, 2, 'admitted'],
  ]
  for (const [total, held, apps, expected] of cases) {
    assert.equal(admitNonce(budget, total, held, apps), expected, `total ${total}, held ${held}, apps ${apps}`)
  }
})

test('nonceRefusal: a StorageUnavailableError (503 code 130) whose message tells the operator why', () => {
  const full = nonceRefusal('full', 'ck1', 3, 100)
  assert.ok(full instanceof StorageUnavailableError)
  assert.equal(full.message, 'nonce store full: 100 nonces held')
  const share = nonceRefusal('over-share', 'ck1', 45, 95)
  assert.ok(share instanceof StorageUnavailableError)
  assert.equal(share.message, 'nonce store nearly full: consumer key ck1 holds 45 of 95 nonces, its share or more')
})
