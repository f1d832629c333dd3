import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { systemClock } from '../../src/domain/clock.ts'
import { effectiveLimits } from '../../src/domain/rate-limit-table.ts'

describe('effectiveLimits', () => {
  const settings = { bearerTokenCallsPerWindow: 60 }
  test('the table\'s limits, an override in place of one, the pace rule from its setting', () => {
    const limits = effectiveLimits({ overrides: { '/account/verify_credentials': 5 }, settings: { bearerTokenCallsPerWindow: 7 }, multiplier: 1 })
    assert.equal(limits.get('/oauth/request_token'), 300)
    assert.equal(limits.get('/account/verify_credentials'), 5)
    assert.equal(limits.get('/oauth2/token'), 7)
  })

  test('every limit is scaled by the multiplier, rounded down, and never below 1', () => {
    const doubled = effectiveLimits({ overrides: {}, settings, multiplier: 2 })
    assert.equal(doubled.get('/oauth/request_token'), 600)
    assert.equal(doubled.get('/account/verify_credentials'), 150)
    assert.equal(doubled.get('/oauth2/token'), 120)
    const tenth = effectiveLimits({ overrides: {}, settings, multiplier: 0.1 })
    assert.equal(tenth.get('/account/verify_credentials'), 7)
    assert.equal(effectiveLimits({ overrides: {}, settings, multiplier: 0.0001 }).get('/account/verify_credentials'), 1)
  })
})

describe('systemClock', () => {
  test('reads the real time in milliseconds', () => {
    const before = Date.now()
    const now = systemClock.nowMs()
    assert.ok(now >= before && now <= Date.now(), `${now} is not between ${before} and now`)
  })
})
