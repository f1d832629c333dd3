import assert from 'node:assert/strict'
import { mock, test } from 'node:test'
import { waitUntilSecondAfter } from '../../src/storage/epoch.ts'

// src/storage/epoch.ts: a nonce store opens once a timestamp taken now is no earlier than its epoch.

test('it resolves only once the wall clock has reached the second after the epoch, even when the timer fires a millisecond early', async () => {
  const second = 1_700_000_001_000
  // The wall clock as a timer that fires early sees it: 300 ms before, then 1 ms short, then there.
  const readings = [second - 300, second - 1, second]
  const now = mock.method(Date, 'now', () => (readings.length > 1 ? readings.shift()! : readings[0]!))
  try {
    await waitUntilSecondAfter(second - 500)
    assert.equal(Date.now(), second, 'a timestamp taken now is no earlier than the epoch')
  } finally {
    now.mock.restore()
  }
})

test('an epoch on a whole second already reached needs no wait: it resolves before any timer could fire', async () => {
  const now = mock.method(Date, 'now', () => 1_700_000_002_000)
  try {
    const first = await Promise.race([
      waitUntilSecondAfter(1_700_000_002_000).then(() => 'resolved'),
      new Promise((resolve) => setImmediate(() => resolve('a timer turn first'))),
    ])
    assert.equal(first, 'resolved')
  } finally {
    now.mock.restore()
  }
})
