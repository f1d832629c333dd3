import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOrReuseBearerToken } from '../../../src/domain/oauth2/bearer-token.ts'
import { invalidateBearerToken } from '../../../src/domain/oauth2/invalidate-bearer-token.ts'
import { verifyBearer } from '../../../src/domain/oauth2/verify-bearer.ts'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../../src/domain/registry/owner-token.ts'
import type { AppRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { assertRefusedOnlyWhenBrokenCall, assertServiceError, inputOf, openDomainTier, signedInput, TIER_URL, type DomainTier } from '../../helpers/domain-tier.ts'

const FORM = 'application/x-www-form-urlencoded'
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

describe('app-only bearer tokens as use cases (domain tier)', () => {
  let tier: DomainTier
  before(async () => {
    tier = await openDomainTier()
  })
  after(() => tier.close())

  const tokenCall = (app: AppRecord, options: { secret?: string; body?: string } = {}) =>
    issueOrReuseBearerToken(
      tier.domain,
      inputOf('POST', `${TIER_URL}/oauth2/token`, { authorization: basic(app.consumerKey, options.secret ?? app.consumerSecret), 'content-type': FORM }, options.body ?? 'grant_type=client_credentials'),
    ).then((result) => result.bearerToken)
  const invalidateWith = (app: AppRecord, token: string, authorization: string) =>
    invalidateBearerToken(tier.domain, inputOf('POST', `${TIER_URL}/oauth2/invalidate_token`, { authorization, 'content-type': FORM }, `access_token=${encodeURIComponent(token)}`))

  test('the first call issues a token, every later one hands out the same, and it identifies the app', async () => {
    const app = await makeApp(tier.domain)
    const first = await tokenCall(app)
    assert.match(first.token, /^A{21}.+%3D[A-Za-z0-9]{60}$/)
    assert.equal(first.createdAtMs, tier.clock.nowMs())
    assert.equal((await tokenCall(app)).token, first.token)
    assert.equal((await verifyBearer(tier.domain, `Bearer ${first.token}`)).app.id, app.id)
    const events = (await tier.domain.stores.audit.list({ appId: app.id, limit: 10 })).filter((e) => e.event === 'bearer_token.issued')
    assert.deepEqual(events.map((e) => e.detail).reverse(), [{ reused: false }, { reused: true }])
  })

  test('a secret differing only in case, a missing grant_type (170) and another grant (99) are refused', async () => {
    const app = await makeApp(tier.domain)
    const swapped = [...app.consumerSecret].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')
    await assertRefusedOnlyWhenBrokenCall((v) => tokenCall(app, { secret: v === 'broken' ? swapped : app.consumerSecret }), 99)
    await assertServiceError(tokenCall(app, { body: 'grant_type=' }), 170)
    await assertServiceError(tokenCall(app, { body: '' }), 170)
    await assertServiceError(tokenCall(app, { body: 'grant_type=password' }), 99)
  })

  test('a suspended app gets 99 for a token, and 416 for its token', async () => {
    const app = await makeApp(tier.domain)
    const token = await tokenCall(app)
    await updateApp(tier.domain, app.id, { isSuspended: true })
    await assertServiceError(tokenCall(app), 99)
    await assertServiceError(verifyBearer(tier.domain, `Bearer ${token.token}`), 416)
  })

  test('invalidation by Basic credentials, by the token itself or by the owner signing: the token is dead, the next call gets a new one', async () => {
    const app = await makeApp(tier.domain)
    const viaBasic = (await tokenCall(app)).token
    await invalidateWith(app, viaBasic, basic(app.consumerKey, app.consumerSecret))
    await assertServiceError(verifyBearer(tier.domain, `Bearer ${viaBasic}`), 89)

    const viaBearer = (await tokenCall(app)).token
    assert.notEqual(viaBearer, viaBasic)
    await invalidateWith(app, viaBearer, `Bearer ${viaBearer}`)
    await assertServiceError(verifyBearer(tier.domain, `Bearer ${viaBearer}`), 89)

    const viaOwner = (await tokenCall(app)).token
    const { token } = await issueOwnerToken(tier.domain, app.id)
    const signed = signedInput(tier, { consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret }, path: `/oauth2/invalidate_token?access_token=${encodeURIComponent(viaOwner)}` })
    assert.equal((await invalidateBearerToken(tier.domain, signed)).accessToken, viaOwner)
    const audit = (await tier.domain.stores.audit.list({ appId: app.id, limit: 50 })).filter((e) => e.event === 'bearer_token.invalidated').reverse()
    assert.deepEqual(audit.map((e) => [e.detail, e.userId]), [[{ via: 'basic' }, null], [{ via: 'bearer' }, null], [{ via: 'oauth1' }, app.ownerId]])
  })

  test('refused invalidations: an unknown or dead token (99), a Bearer naming another token (99), another app (99), a person who is not the owner (220)', async () => {
    const app = await makeApp(tier.domain)
    const other = await makeApp(tier.domain)
    const token = (await tokenCall(app)).token
    const otherToken = (await tokenCall(other)).token
    await assertServiceError(invalidateWith(app, 'AAAAunknown', basic(app.consumerKey, app.consumerSecret)), 99)
    await assertServiceError(invalidateWith(app, token, `Bearer ${otherToken}`), 99)
    await assertServiceError(invalidateWith(app, token, basic(other.consumerKey, other.consumerSecret)), 99)
    const stranger = (await makeUser(tier.domain)).user
    const { issueOrReuseAccessToken } = await import('../../../src/domain/oauth1/issue-access-token.ts')
    const strangers = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: stranger.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    const signed = signedInput(tier, { consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: strangers.token, secret: strangers.secret }, path: `/oauth2/invalidate_token?access_token=${encodeURIComponent(token)}` })
    await assertServiceError(invalidateBearerToken(tier.domain, signed), 220)
    // None of that touched the token.
    assert.equal((await verifyBearer(tier.domain, `Bearer ${token}`)).app.id, app.id)
    await invalidateWith(app, token, basic(app.consumerKey, app.consumerSecret))
    await assertServiceError(invalidateWith(app, token, basic(app.consumerKey, app.consumerSecret)), 99)
  })
})
