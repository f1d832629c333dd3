import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createAdminToken, revokeAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { handOutBearerToken } from '../../src/domain/oauth2/bearer-token.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { startAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { authorizedRequestToken } from '../helpers/flow.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { send, signedFetch } from '../helpers/oauth1-client.ts'
import { counterValues, deltas, parseScrape, seriesKey } from '../helpers/prometheus-text.ts'
import { Browser } from '../helpers/browser.ts'
import { makeRequestToken, openAndAllow, signInAndAllow } from '../helpers/consent-pages.ts'

/**
 * Issue 15's leftovers: the label values docs/metrics.md promises that test/observability/metrics.test.ts
 * does not move, each moved here by a real path (HTTP, the admin API, the consent page) and seen in a
 * scrape of /metrics: tokens of every kind issued and invalidated (admin tokens included), every
 * `subject` of a rate limit, and every sign-in result.
 */
describe('every documented label value is emitted', () => {
  let t: AdminTestServer
  before(async () => {
    t = await startAdminTestServer({
      metrics: true,
      settings: { rateLimits: { '/account/verify_credentials': 1, '/oauth/authenticate': 1 }, signInMaxFailures: 1 },
    })
  })
  after(() => t.close())

  const scrape = async () => {
    const response = await fetch(`${t.url}/metrics`)
    assert.equal(response.status, 200)
    return counterValues(parseScrape(await response.text()), 'latchkey_')
  }

  test('tokens of every kind, limits of every subject and sign-ins of every result', async () => {
    const app = await makeApp(t.domain)
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const { user } = await makeUser(t.domain)
    const before = await scrape()

    // Admin tokens, made and revoked as `latchkey admin-token` and the development server do.
    const admin = await createAdminToken(t.domain, 'counted')
    await revokeAdminToken(t.domain, admin.record.id)

    // A request token, exchanged for an access token; the person's authorization withdrawn through the admin API.
    const rt = await authorizedRequestToken(t, app, user)
    const exchanged = await signedFetch({ consumer, token: { key: rt.token, secret: rt.secret }, method: 'POST', url: `${t.url}/oauth/access_token`, oauth: { oauth_verifier: rt.verifier } })
    assert.equal(exchanged.status, 200, exchanged.text)
    assert.equal((await t.admin('DELETE', `/admin/v1/users/${user.id}/authorizations/${app.id}`)).status, 204)

    // A bearer token invalidated by the app (Basic), another revoked through the admin API.
    const basic = `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`
    const first = await handOutBearerToken(t.domain, app.id, null)
    const invalidated = await send({
      method: 'POST',
      url: `${t.url}/oauth2/invalidate_token`,
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: `access_token=${encodeURIComponent(first.token)}`,
    })
    assert.equal(invalidated.status, 200, invalidated.text)
    await handOutBearerToken(t.domain, app.id, null)
    assert.equal((await t.admin('DELETE', `/admin/v1/apps/${app.id}/bearer-token`)).status, 204)

    // A person's budget (verify_credentials: 1 per person and app), an address's (authenticate: 1).
    const { token: owner } = await issueOwnerToken(t.domain, app.id)
    const verify = () => signedFetch({ consumer, token: { key: owner.token, secret: owner.secret }, method: 'GET', url: `${t.url}/1.1/account/verify_credentials.json` })
    assert.equal((await verify()).status, 200)
    assert.equal((await verify()).status, 429)
    const page = (await makeRequestToken(t.domain, app)).token
    await fetch(`${t.url}/oauth/authenticate?oauth_token=${page}`)
    assert.equal((await fetch(`${t.url}/oauth/authenticate?oauth_token=${page}`)).status, 429)

    // Sign-ins: one that works; a wrong password, then the throttle (1 failure allowed).
    await signInAndAllow(t, app, '10.61.0.1')
    const stranger = new Browser(t.app, '10.61.0.2')
    const wrong = { username: user.screenName, password: 'not the password' }
    assert.equal((await openAndAllow(stranger, '/oauth/authorize', (await makeRequestToken(t.domain, app)).token, wrong)).statusCode, 401)
    assert.equal((await openAndAllow(stranger, '/oauth/authorize', (await makeRequestToken(t.domain, app)).token, wrong)).statusCode, 429)

    const moved = deltas(before, await scrape())
    const expected: Array<[string, Record<string, string>]> = [
      ['latchkey_tokens_issued_total', { kind: 'admin_token' }],
      ['latchkey_tokens_invalidated_total', { kind: 'admin_token', reason: 'admin' }],
      ['latchkey_tokens_issued_total', { kind: 'request_token' }],
      ['latchkey_tokens_issued_total', { kind: 'access_token' }],
      ['latchkey_tokens_invalidated_total', { kind: 'access_token', reason: 'admin' }],
      ['latchkey_tokens_issued_total', { kind: 'bearer_token' }],
      ['latchkey_tokens_invalidated_total', { kind: 'bearer_token', reason: 'invalidate_token' }],
      ['latchkey_tokens_invalidated_total', { kind: 'bearer_token', reason: 'admin' }],
      ['latchkey_rate_limited_total', { resource: '/account/verify_credentials', subject: 'user' }],
      ['latchkey_rate_limited_total', { resource: '/oauth/authenticate', subject: 'address' }],
      ['latchkey_rate_limited_total', { resource: 'sign_in', subject: 'sign_in' }],
      ['latchkey_sign_in_attempts_total', { result: 'ok' }],
      ['latchkey_sign_in_attempts_total', { result: 'wrong_password' }],
      ['latchkey_sign_in_attempts_total', { result: 'throttled' }],
    ]
    for (const [name, labels] of expected) {
      const key = seriesKey(name, labels)
      assert.ok((moved[key] ?? 0) >= 1, `${key} moved (moved: ${JSON.stringify(moved)})`)
    }
    // One count per refusal: a throttled sign-in is one sign-in attempt and one rate-limit refusal.
    assert.equal(
      moved[seriesKey('latchkey_rate_limited_total', { resource: 'sign_in', subject: 'sign_in' })],
      moved[seriesKey('latchkey_sign_in_attempts_total', { result: 'throttled' })],
    )
    // Each limit refusal above was one 429: each counts exactly once.
    assert.equal(moved[seriesKey('latchkey_rate_limited_total', { resource: '/oauth/authenticate', subject: 'address' })], 1)
    assert.equal(moved[seriesKey('latchkey_rate_limited_total', { resource: '/account/verify_credentials', subject: 'user' })], 1)
    assert.equal(moved[seriesKey('latchkey_rate_limited_total', { resource: 'sign_in', subject: 'sign_in' })], 1)
    assert.equal(moved[seriesKey('latchkey_tokens_issued_total', { kind: 'admin_token' })], 1)
    assert.equal(moved[seriesKey('latchkey_tokens_invalidated_total', { kind: 'admin_token', reason: 'admin' })], 1)
  })
})
