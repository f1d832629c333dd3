import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOrReuseBearerToken } from '../../../src/domain/oauth2/bearer-token.ts'
import { TALLY_MS } from '../../../src/domain/oauth2/hand-out-tally.ts'
import { authenticateAppClient, readClientCredentials } from '../../../src/domain/oauth2/client-credentials.ts'
import { invalidateBearerToken } from '../../../src/domain/oauth2/invalidate-bearer-token.ts'
import { verifyBearer } from '../../../src/domain/oauth2/verify-bearer.ts'
import { identifyCaller } from '../../../src/domain/identify-caller.ts'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../../src/domain/registry/owner-token.ts'
import { ServiceError } from '../../../src/errors/service-error.ts'
import type { AppRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { recordingObserver } from '../../helpers/recording-observer.ts'
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
    const issued = async () => (await bearerRows(app, 'bearer_token.issued')).map((row) => row.detail)
    assert.deepEqual(await issued(), [{ reused: false }], 'a repeat writes nothing itself')
    tier.clock.advance(TALLY_MS)
    assert.equal((await tokenCall(app)).token, first.token)
    await tier.domain.handOuts.flush()
    assert.deepEqual(await issued(), [{ reused: false }, { reused: true, count: 2 }], "a minute on, the app's next repeat writes the row of its repeats")
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
  /** The use cases with an observer that records tokens issued and invalidated and bearer verifications. */
  function observedDomain() {
    const observe = recordingObserver()
    return { deps: { ...tier.domain, observe }, events: observe.told }
  }
  const tokenCallInput = (app: AppRecord, headers: Record<string, string> = { authorization: basic(app.consumerKey, app.consumerSecret) }, body = 'grant_type=client_credentials') =>
    inputOf('POST', `${TIER_URL}/oauth2/token`, { 'content-type': FORM, ...headers }, body)
  const detailOf = async (work: Promise<unknown>, code: number): Promise<string | undefined> => {
    const error = await work.then(() => assert.fail('expected a refusal'), (e: unknown) => e)
    assert.ok(error instanceof ServiceError, String(error))
    assert.equal(error.code, code, error.message)
    return error.detail
  }
  const bearerRows = async (app: AppRecord, event: string) =>
    (await tier.domain.stores.audit.list({ appId: app.id, limit: 50 })).filter((row) => row.event === event).reverse()

  test('every hand-out is counted and audited with the address; each app is charged on its own pace budget', async () => {
    const { deps, events } = observedDomain()
    const app = await makeApp(tier.domain)
    const other = await makeApp(tier.domain)
    const first = await issueOrReuseBearerToken(deps, tokenCallInput(app))
    const repeat = await issueOrReuseBearerToken(deps, tokenCallInput(app))
    const othersFirst = await issueOrReuseBearerToken(deps, tokenCallInput(other))
    assert.deepEqual(events, ['issued:bearer_token', 'issued:bearer_token', 'issued:bearer_token'])
    const pace = 60 // --bearer-token-pace's default
    assert.deepEqual([first.limit?.limit, first.limit?.remaining, repeat.limit?.remaining], [pace, pace - 1, pace - 2])
    assert.equal(othersFirst.limit?.remaining, pace - 1, "another app's calls spend its own budget")
    await tier.domain.handOuts.flush({ all: true })
    assert.deepEqual((await bearerRows(app, 'bearer_token.issued')).map((row) => [row.address, row.detail]), [
      ['192.0.2.1', { reused: false }],
      ['192.0.2.1', { reused: true, count: 1 }],
    ])
  })

  test('first calls arriving at once all get the one token; the hand-outs after the first are audited as reused', async () => {
    const app = await makeApp(tier.domain)
    const tokens = await Promise.all([0, 1, 2].map(() => tokenCall(app)))
    assert.equal(new Set(tokens.map((token) => token.token)).size, 1)
    await tier.domain.handOuts.flush({ all: true })
    const rows = await bearerRows(app, 'bearer_token.issued')
    assert.deepEqual(rows.filter((row) => row.detail?.reused === false).length, 1)
    assert.equal(rows.reduce((sum, row) => sum + (typeof row.detail?.count === 'number' ? row.detail.count : 1), 0), 3, 'every hand-out is in the trail')
  })

  test('client_id and client_secret in the body stand for Basic credentials; half of them is no credentials (99)', async () => {
    const app = await makeApp(tier.domain)
    const body = (pairs: Record<string, string>) => new URLSearchParams({ grant_type: 'client_credentials', ...pairs }).toString()
    const viaBody = await issueOrReuseBearerToken(tier.domain, tokenCallInput(app, {}, body({ client_id: app.consumerKey, client_secret: app.consumerSecret })))
    assert.equal(viaBody.bearerToken.appId, app.id)
    assert.equal(await detailOf(issueOrReuseBearerToken(tier.domain, tokenCallInput(app, {}, body({ client_id: app.consumerKey }))), 99), 'no client credentials')
    assert.equal(await detailOf(issueOrReuseBearerToken(tier.domain, tokenCallInput(app, {}, body({ client_secret: app.consumerSecret }))), 99), 'no client credentials')
    assert.equal(await detailOf(issueOrReuseBearerToken(tier.domain, tokenCallInput(app, {}, body({}))), 99), 'no client credentials')
    assert.deepEqual(readClientCredentials(undefined, [['client_id', 'k'], ['client_secret', '']]), { clientId: 'k', clientSecret: '' })
    assert.equal(readClientCredentials(undefined, [['client_id', ''], ['client_secret', 's']]), undefined)
    assert.deepEqual(readClientCredentials(basic('k', 's'), [['client_id', 'other'], ['client_secret', 'other']]), { clientId: 'k', clientSecret: 's' })
  })

  test('refused client credentials say why in the logs: unknown key, wrong secret, unsupported grant', async () => {
    const app = await makeApp(tier.domain)
    assert.equal(await detailOf(tokenCall({ ...app, consumerKey: 'no-such-key' }), 99), 'client credentials refused')
    assert.equal(await detailOf(tokenCall(app, { secret: 'wrong' }), 99), 'client credentials refused')
    assert.equal(await detailOf(tokenCall(app, { body: 'grant_type=password' }), 99), 'unsupported grant_type')
  })

  test('a client that must be a resource server is refused unless the app is one', async () => {
    const plain = await makeApp(tier.domain)
    const server = await makeApp(tier.domain, { isResourceServer: true })
    const as = (app: AppRecord) => ({ clientId: app.consumerKey, clientSecret: app.consumerSecret })
    await assertServiceError(authenticateAppClient(tier.domain, as(plain), { requireResourceServer: true }), 99)
    assert.equal((await authenticateAppClient(tier.domain, as(plain))).id, plain.id)
    assert.equal((await authenticateAppClient(tier.domain, as(server), { requireResourceServer: true })).id, server.id)
  })

  test('verifying a bearer: no bearer header is 215, an unknown token 89, each reported to the observer', async () => {
    const { deps, events } = observedDomain()
    const app = await makeApp(tier.domain)
    const live = await tokenCall(app)
    assert.equal(await detailOf(verifyBearer(deps, undefined), 215), 'no bearer token')
    assert.equal(await detailOf(verifyBearer(deps, basic(app.consumerKey, app.consumerSecret)), 215), 'no bearer token')
    assert.equal(await detailOf(verifyBearer(deps, 'Bearer AAAAunknown'), 89), 'bearer token not live')
    assert.equal((await verifyBearer(deps, `Bearer ${live.token}`)).token.token, live.token)
    // A live token is reported once its caller is admitted (identifyCaller), however many lookups that took.
    await identifyCaller(deps, inputOf('GET', 'https://api.latchkey.test/1.1/application/rate_limit_status.json', { authorization: `Bearer ${live.token}` }), null)
    await invalidateWith(app, live.token, basic(app.consumerKey, app.consumerSecret))
    assert.equal(await detailOf(verifyBearer(deps, `Bearer ${live.token}`), 89), 'bearer token not live')
    await updateApp(tier.domain, app.id, { isSuspended: true })
    const suspendedApp = await makeApp(tier.domain)
    const suspendedToken = await tokenCall(suspendedApp)
    await updateApp(tier.domain, suspendedApp.id, { isSuspended: true })
    await assertServiceError(verifyBearer(deps, `Bearer ${suspendedToken.token}`), 416)
    assert.deepEqual(events, ['bearer:malformed', 'bearer:malformed', 'bearer:invalid_token', 'bearer:ok', 'bearer:invalid_token', 'bearer:invalid_token'])
  })

  test('invalidating a bearer: counted, charged; refusals say why in the logs', async () => {
    const { deps, events } = observedDomain()
    const app = await makeApp(tier.domain)
    const other = await makeApp(tier.domain)
    const token = (await tokenCall(app)).token
    const otherToken = (await tokenCall(other)).token
    const call = (authorization: string, body: string) => invalidateBearerToken(deps, inputOf('POST', `${TIER_URL}/oauth2/invalidate_token`, { authorization, 'content-type': FORM }, body))
    const byBasic = basic(app.consumerKey, app.consumerSecret)
    assert.equal(await detailOf(call(byBasic, ''), 99), 'access_token is missing')
    assert.equal(await detailOf(call(`Bearer ${token}`, `access_token=${encodeURIComponent(otherToken)}`), 99), 'Bearer names another token')
    assert.equal(await detailOf(call(byBasic, `access_token=${encodeURIComponent(otherToken)}`), 99), 'no such live bearer token for this app')
    const invalidations = () => events.filter((event) => event.startsWith('invalidated'))
    assert.deepEqual(invalidations(), [])
    const done = await call(`Bearer ${token}`, `access_token=${encodeURIComponent(token)}`)
    assert.equal(done.accessToken, token)
    assert.equal(done.limit?.limit, 300)
    assert.deepEqual(invalidations(), ['invalidated:bearer_token:invalidate_token'])
    assert.deepEqual((await bearerRows(app, 'bearer_token.invalidated')).map((row) => [row.address, row.detail]), [['192.0.2.1', { via: 'bearer' }]])
  })
})
