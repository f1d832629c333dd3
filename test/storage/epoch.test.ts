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

test('an epoch on a whole second in the past needs no wait', async () => {
  const now = mock.method(Date, 'now', () => 1_700_000_002_000)
  try {
    const started = performance.now()
    await waitUntilSecondAfter(1_700_000_002_000)
    assert.ok(performance.now() - started < 50)
  } finally {
    now.mock.restore()
  }
})
