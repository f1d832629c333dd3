// The bench measures only on a quiet machine, and says how much CPU time was stolen (bench/quiet.ts).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { QUIET_LOAD, cpuTimes, notQuiet, stealPercent } from '../../bench/quiet.ts'

describe('a quiet machine', () => {
  test('is one whose load average is below 0.5; above, the refusal says what to do', () => {
    assert.equal(QUIET_LOAD, 0.5)
    assert.equal(notQuiet(0), undefined)
    assert.equal(notQuiet(0.49), undefined)
    assert.match(notQuiet(0.5) ?? '', /^the load average is 0\.50 \(a benchmark needs it below 0\.5\): stop what else runs/)
    assert.match(notQuiet(3.2) ?? '', /load average is 3\.20/)
  })

  test('stolen time is the share of the CPU time between two readings that a hypervisor took', () => {
    assert.equal(stealPercent({ total: 1000, steal: 10 }, { total: 1400, steal: 30 }), 5)
    assert.equal(stealPercent({ total: 1000, steal: 10 }, { total: 1000, steal: 10 }), undefined, 'no time passed')
    assert.equal(stealPercent(undefined, { total: 1, steal: 0 }), undefined)
    // This machine's own counters move forward (Linux).
    const first = cpuTimes()
    if (first) {
      const busyUntil = Date.now() + 30
      while (Date.now() < busyUntil);
      const second = cpuTimes()!
      assert.ok(second.total > first.total && second.steal >= first.steal)
      const share = stealPercent(first, second)!
      assert.ok(share >= 0 && share <= 100)
    }
  })
})
