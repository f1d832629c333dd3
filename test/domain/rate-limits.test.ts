import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { DomainObserver } from '../../src/domain/observe.ts'
import { limitedSubjectOf } from '../../src/domain/observe.ts'
import { afterCharge, admitCall, chargedSubject, limitSubject } from '../../src/domain/rate-limits.ts'
import { E } from '../../src/errors/catalogue.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { inputOf, openDomainTier, type DomainTier } from '../helpers/domain-tier.ts'

/** An observer that keeps only what rateLimited was told (the metrics' rate_limited counter). */
function limitObserver() {
  const seen: string[] = []
  const observer = { rateLimited: (resource: string, subject: string) => void seen.push(`${resource} ${subject}`) } as unknown as DomainObserver
  return { observer, seen }
}

const withoutReset = <T extends { resetAtMs: number } | undefined>(state: T) => (state === undefined ? state : { ...state, resetAtMs: 0 })

describe('limit subjects', () => {
  test('each kind of key says whose budget it is', () => {
    assert.equal(limitedSubjectOf(limitSubject.app('12')), 'app')
    assert.equal(limitedSubjectOf(limitSubject.user('12', '34')), 'user')
    assert.equal(limitedSubjectOf(limitSubject.address('192.0.2.7')), 'address')
    assert.equal(limitedSubjectOf(limitSubject.address('2001:db8::1')), 'address')
  })

  test('keys of different apps, people and addresses differ; an IPv6 /64 is one address', () => {
    const keys = [limitSubject.app('1'), limitSubject.app('2'), limitSubject.user('1', '2'), limitSubject.user('1', '3'), limitSubject.user('2', '2'), limitSubject.address('192.0.2.1'), limitSubject.address('192.0.2.2')]
    assert.equal(new Set(keys).size, keys.length)
    assert.equal(limitSubject.address('2001:db8:0:1::1'), limitSubject.address('2001:db8:0:1::ffff'))
    assert.notEqual(limitSubject.address('2001:db8:0:1::1'), limitSubject.address('2001:db8:0:2::1'))
  })

  test('whose budget: the app, the app and person where the row counts by caller, the address where it counts by address or no one is verified', () => {
    const person = { appId: '1', userId: '2' }
    const address = '192.0.2.1'
    assert.equal(chargedSubject('app', { payer: person, address }), limitSubject.app('1'))
    assert.equal(chargedSubject('caller', { payer: person, address }), limitSubject.user('1', '2'))
    assert.equal(chargedSubject('caller', { payer: { appId: '1' } }), limitSubject.app('1'))
    assert.equal(chargedSubject('address', { payer: person, address }), limitSubject.address(address))
    assert.equal(chargedSubject('caller', { address }), limitSubject.address(address))
    assert.throws(() => chargedSubject('address', { payer: person }))
  })
})

describe('admitCall and afterCharge (domain tier)', () => {
  let tier: DomainTier
  before(async () => {
    tier = await openDomainTier({ settings: { rateLimits: { '/account/verify_credentials': 2, '/oauth2/introspect': 2 }, bearerTokenCallsPerWindow: 1 } })
  })
  after(() => tier.close())

  test("a resource counted per caller charges a person within an app apart from the app and from other people; past the limit, 429 code 88 and the observer hears 'user'", async () => {
    const { observer, seen } = limitObserver()
    const deps = { ...tier.domain, observe: observer }
    const first = await admitCall(deps, '/account/verify_credentials', { appId: 'a1', userId: 'u1' })
    assert.deepEqual(withoutReset(first.limit), { isAllowed: true, limit: 2, remaining: 1, resetAtMs: 0 })
    await admitCall(deps, '/account/verify_credentials', { appId: 'a1', userId: 'u1' })
    await assert.rejects(admitCall(deps, '/account/verify_credentials', { appId: 'a1', userId: 'u1' }), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.deepEqual([error.status, error.code, error.message], [429, 88, 'Rate limit exceeded'])
      assert.deepEqual(withoutReset(error.rateLimit), { isAllowed: false, limit: 2, remaining: 0, resetAtMs: 0 })
      // What the operator reads in the log line of the refusal.
      assert.equal(error.detail, 'rate limit of /account/verify_credentials')
      return true
    })
    assert.deepEqual(seen, ['/account/verify_credentials user'])
    // Another person of the same app, the same person in another app, and the app alone: each its own budget.
    for (const payer of [{ appId: 'a1', userId: 'u2' }, { appId: 'a2', userId: 'u1' }, { appId: 'a1' }]) {
      assert.equal((await admitCall(deps, '/account/verify_credentials', payer)).limit?.remaining, 1, JSON.stringify(payer))
    }
  })

  test("a resource counted per app charges the app whoever signs; past it the observer hears 'app'", async () => {
    const { observer, seen } = limitObserver()
    const deps = { ...tier.domain, observe: observer }
    await admitCall(deps, '/oauth2/introspect', { appId: 'b1', userId: 'u1' })
    assert.equal((await admitCall(deps, '/oauth2/introspect', { appId: 'b1', userId: 'u2' })).limit?.remaining, 0)
    await assert.rejects(admitCall(deps, '/oauth2/introspect', { appId: 'b1' }), (error: unknown) => error instanceof ServiceError && error.code === 88)
    assert.deepEqual(seen, ['/oauth2/introspect app'])
    assert.equal((await admitCall(deps, '/oauth2/introspect', { appId: 'b2' })).limit?.remaining, 1)
  })

  test("a pace rule throws its own error past its limit: /oauth2/token's 403 code 99", async () => {
    await admitCall(tier.domain, '/oauth2/token', { appId: 'c1' })
    await assert.rejects(admitCall(tier.domain, '/oauth2/token', { appId: 'c1' }), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.deepEqual([error.status, error.code], [403, 99])
      assert.deepEqual(withoutReset(error.rateLimit), { isAllowed: false, limit: 1, remaining: 0, resetAtMs: 0 })
      return true
    })
  })

  test("an address that has spent its budget of failures is refused 429 before anything is charged, whoever signs; the observer hears 'address'", async () => {
    const { observer, seen } = limitObserver()
    const deps = { ...tier.domain, observe: observer }
    const input = { ...inputOf('POST', 'https://api.latchkey.test/oauth2/introspect', {}), clientAddress: '198.51.100.7', addressBudget: '/oauth2/introspect' as const }
    const limiter = tier.domain.limiters.endpoints.get('/oauth2/introspect')!
    assert.equal((await admitCall(deps, '/oauth2/introspect', { appId: 'f1' }, { input })).limit?.remaining, 1, 'one failure short of the budget: admitted')
    await limiter.hit(limitSubject.address('198.51.100.7'))
    await limiter.hit(limitSubject.address('198.51.100.7'))
    await assert.rejects(admitCall(deps, '/oauth2/introspect', { appId: 'f2' }, { input }), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.deepEqual([error.status, error.code, error.detail], [429, 88, 'address limit of /oauth2/introspect'])
      assert.deepEqual(withoutReset(error.rateLimit), { isAllowed: false, limit: 2, remaining: 0, resetAtMs: 0 })
      return true
    })
    assert.deepEqual(seen, ['/oauth2/introspect address'])
    assert.equal((await limiter.peek(limitSubject.app('f2'))).remaining, 2, 'the refused call charged no one')
    // Another address, or a call that names no budget of its address, is not refused.
    assert.equal((await admitCall(deps, '/oauth2/introspect', { appId: 'f2' }, { input: { ...input, clientAddress: '198.51.100.8' } })).limit?.remaining, 1)
    assert.equal((await admitCall(deps, '/oauth2/introspect', { appId: 'f2' }, { input: { ...input, addressBudget: undefined } })).limit?.remaining, 0)
  })

  test('refund gives the call back', async () => {
    const charge = await admitCall(tier.domain, '/oauth2/introspect', { appId: 'd1' })
    assert.equal(charge.limit?.remaining, 1)
    await charge.refund()
    assert.equal((await admitCall(tier.domain, '/oauth2/introspect', { appId: 'd1' })).limit?.remaining, 1)
  })

  test('a resource without a limiter charges nothing', async () => {
    const deps = { ...tier.domain, limiters: { ...tier.domain.limiters, endpoints: new Map() } }
    const charge = await admitCall(deps, '/oauth2/introspect', { appId: 'e1' })
    assert.equal(charge.limit, undefined)
    await charge.refund()
  })

  test('afterCharge: the answer gets the state; a service error thrown after the count gets it too, unless it has its own', async () => {
    const state = { isAllowed: true, limit: 5, remaining: 4, resetAtMs: 1_000 }
    assert.deepEqual(await afterCharge(state, async () => ({ answer: 1 })), { answer: 1, limit: state })
    await assert.rejects(
      afterCharge(state, async () => {
        throw new ServiceError(E.couldNotAuthenticate)
      }),
      (error: unknown) => error instanceof ServiceError && error.code === 32 && error.rateLimit === state,
    )
    const own = { ...state, remaining: 0 }
    await assert.rejects(
      afterCharge(state, async () => {
        throw new ServiceError(E.couldNotAuthenticate, { rateLimit: own })
      }),
      (error: unknown) => error instanceof ServiceError && error.rateLimit === own,
    )
    const plain = new Error('not a service error')
    await assert.rejects(
      afterCharge(state, async () => {
        throw plain
      }),
      (error: unknown) => error === plain && !('rateLimit' in error),
    )
  })
})
