import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Caller } from '../../src/domain/identify-caller.ts'
import { rateLimitStatus } from '../../src/domain/rate-limit-status.ts'
import { RATE_LIMITED_ENDPOINTS } from '../../src/domain/rate-limit-table.ts'
import { admitCall, limitSubject } from '../../src/domain/rate-limits.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { openDomainTier, type DomainTier } from '../helpers/domain-tier.ts'

// GET /1.1/application/rate_limit_status.json as a use case: the caller's own state at every limited endpoint.
describe('rateLimitStatus (domain tier)', () => {
  let tier: DomainTier
  let app: AppRecord
  let person: UserRecord
  let asApp: Caller
  let asPerson: Caller
  before(async () => {
    tier = await openDomainTier()
    app = await makeApp(tier.domain)
    person = (await makeUser(tier.domain)).user
    asApp = { context: 'app', kind: 'oauth1_app', app, accessLevel: app.accessLevel, credential: app.consumerKey }
    asPerson = { context: 'user', kind: 'oauth1_user', app, user: person, accessLevel: 'read', credential: 'token' }
  })
  after(() => tier.close())

  const remainingOf = (status: Record<string, Record<string, { remaining: number }>>, family: string, resource: string) => status[family]?.[resource]?.remaining

  test('a fresh caller sees every limited endpoint, grouped by family, at its full limit, with a reset in epoch seconds within the window', async () => {
    const fresh = await makeApp(tier.domain)
    const status = await rateLimitStatus(tier.domain, { context: 'app', kind: 'oauth1_app', app: fresh, accessLevel: fresh.accessLevel, credential: fresh.consumerKey }, '198.51.100.1', undefined)
    assert.deepEqual(Object.keys(status).sort(), ['account', 'application', 'oauth', 'oauth2', 'oauth2_user', 'resource_servers', 'users'])
    const nowSeconds = Date.now() / 1000
    for (const endpoint of RATE_LIMITED_ENDPOINTS) {
      const shown = status[endpoint.family]?.[endpoint.resource]
      assert.ok(shown, endpoint.resource)
      const limit = endpoint.resource === '/oauth2/token' ? shown.limit : endpoint.limit
      assert.deepEqual([shown.limit, shown.remaining], [limit, limit], endpoint.resource)
      assert.ok(Number.isInteger(shown.reset) && shown.reset >= nowSeconds && shown.reset <= nowSeconds + 901, `${endpoint.resource} ${shown.reset}`)
    }
    assert.equal(Object.values(status).flatMap((family) => Object.keys(family)).length, RATE_LIMITED_ENDPOINTS.length)
  })

  test("per-caller endpoints show the person's own budget to a person and the app's to the app; per-app endpoints the app's to both", async () => {
    await admitCall(tier.domain, '/account/verify_credentials', { appId: app.id, userId: person.id })
    await admitCall(tier.domain, '/account/verify_credentials', { appId: app.id, userId: person.id })
    await admitCall(tier.domain, '/application/rate_limit_status', { appId: app.id })
    await admitCall(tier.domain, '/oauth/request_token', { appId: app.id, userId: person.id })
    const mine = await rateLimitStatus(tier.domain, asPerson, '198.51.100.2', undefined)
    const apps = await rateLimitStatus(tier.domain, asApp, '198.51.100.2', undefined)
    assert.equal(remainingOf(mine, 'account', '/account/verify_credentials'), 73)
    assert.equal(remainingOf(apps, 'account', '/account/verify_credentials'), 75)
    assert.equal(remainingOf(mine, 'application', '/application/rate_limit_status'), 180)
    assert.equal(remainingOf(apps, 'application', '/application/rate_limit_status'), 179)
    assert.equal(remainingOf(mine, 'oauth', '/oauth/request_token'), 299)
    assert.equal(remainingOf(apps, 'oauth', '/oauth/request_token'), 299)
    // Another app's person and app see none of it.
    const other = await makeApp(tier.domain)
    const theirs = await rateLimitStatus(tier.domain, { ...asPerson, app: other } as Caller, '198.51.100.2', undefined)
    assert.equal(remainingOf(theirs, 'account', '/account/verify_credentials'), 75)
    assert.equal(remainingOf(theirs, 'oauth', '/oauth/request_token'), 300)
  })

  test("the pages' endpoints show the budget of the caller's address (an IPv6 /64 is one), whoever asks", async () => {
    const authorize = tier.domain.limiters.endpoints.get('/oauth/authorize')!
    await authorize.hit(limitSubject.address('2001:db8:0:7::1'))
    for (const caller of [asApp, asPerson]) {
      assert.equal(remainingOf(await rateLimitStatus(tier.domain, caller, '2001:db8:0:7::1', undefined), 'oauth', '/oauth/authorize'), 299)
      assert.equal(remainingOf(await rateLimitStatus(tier.domain, caller, '2001:db8:0:7::2', undefined), 'oauth', '/oauth/authorize'), 299)
      const elsewhere = await rateLimitStatus(tier.domain, caller, '2001:db8:0:8::1', undefined)
      assert.equal(remainingOf(elsewhere, 'oauth', '/oauth/authorize'), 300)
    }
  })

  test('the reset is the end of the window in whole seconds, rounded up', async () => {
    await admitCall(tier.domain, '/oauth2/introspect', { appId: app.id })
    const state = await tier.domain.limiters.endpoints.get('/oauth2/introspect')!.peek(limitSubject.app(app.id))
    const shown = (await rateLimitStatus(tier.domain, asApp, '198.51.100.3', ['oauth2'])).oauth2?.['/oauth2/introspect']
    assert.deepEqual(shown, { limit: 1800, remaining: 1799, reset: Math.ceil(state.resetAtMs / 1000) })
  })

  test('resources= narrows the answer to the families named; an endpoint without a limiter is left out', async () => {
    const narrowed = await rateLimitStatus(tier.domain, asApp, '198.51.100.4', ['oauth2', 'account', 'nonsense'])
    assert.deepEqual(Object.keys(narrowed).sort(), ['account', 'oauth2'])
    assert.deepEqual(Object.keys(narrowed.oauth2 ?? {}).sort(), ['/oauth2/introspect', '/oauth2/invalidate_token', '/oauth2/token'])
    assert.deepEqual(await rateLimitStatus(tier.domain, asApp, '198.51.100.4', []), {})
    const endpoints = new Map(tier.domain.limiters.endpoints)
    endpoints.delete('/oauth2/token')
    const without = await rateLimitStatus({ limiters: { ...tier.domain.limiters, endpoints } }, asApp, '198.51.100.4', ['oauth2'])
    assert.deepEqual(Object.keys(without.oauth2 ?? {}).sort(), ['/oauth2/introspect', '/oauth2/invalidate_token'])
  })
})
