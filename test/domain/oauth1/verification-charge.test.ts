import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createDomainDeps } from '../../../src/composition/root.ts'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { issueRequestToken } from '../../../src/domain/oauth1/request-token.ts'
import { verifySignedRequest, type TokenKind } from '../../../src/domain/oauth1/verify-signed-request.ts'
import type { OAuth1VerificationResult } from '../../../src/domain/observe.ts'
import type { RateLimitedResource } from '../../../src/domain/rate-limit-table.ts'
import { ServiceError } from '../../../src/errors/service-error.ts'
import { StorageUnavailableError } from '../../../src/storage/errors.ts'
import { openStorage } from '../../../src/storage/open-stores.ts'
import type { AppRecord, UserRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { FIXED_START_MS, assertServiceError, openDomainTier, signedInput, type DomainTier } from '../../helpers/domain-tier.ts'
import { testKeyring } from '../../helpers/keys.ts'
import { testClock, testDomainSettings } from '../../helpers/test-domain.ts'
import type { SignOptions } from '../../helpers/oauth1-client.ts'
import { quietObserver } from '../../helpers/recording-observer.ts'

// What a verified call costs its budget (rate-limit-table.ts), and when the count is given back:
// a replay, a request signed before the nonce store's epoch, a nonce store that cannot take it.

const VERIFY = '/1.1/account/verify_credentials.json'
/** Counted per caller: per app and person for a call signed with an access token, else per app. */
const PER_CALLER: RateLimitedResource = '/account/verify_credentials'
const PER_CALLER_LIMIT = 75

type Signer = { consumer: { key: string; secret: string } }
const signerOf = (app: AppRecord): Signer => ({ consumer: { key: app.consumerKey, secret: app.consumerSecret } })

describe('what verifySignedRequest charges (domain tier)', () => {
  let tier: DomainTier
  let person: UserRecord
  let other: UserRecord

  const verify = <K extends TokenKind>(signer: Signer, kind: K, options: Partial<SignOptions> = {}, charge: RateLimitedResource | null = PER_CALLER) =>
    verifySignedRequest(tier.domain, signedInput(tier, { ...signer, method: 'GET', path: VERIFY, ...options }), { tokenKind: kind, charge })
  const accessToken = async (app: AppRecord, user: UserRecord) => {
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: user.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    return { key: issued.token, secret: issued.secret }
  }
  const remaining = async (call: Promise<{ limit: { remaining: number } | undefined }>) => (await call).limit?.remaining

  before(async () => {
    tier = await openDomainTier()
    person = (await makeUser(tier.domain)).user
    other = (await makeUser(tier.domain)).user
  })
  after(() => tier.close())

  test('uncharged (charge: null): no limit in the answer', async () => {
    const app = await makeApp(tier.domain)
    assert.equal((await verify(signerOf(app), 'none', {}, null)).limit, undefined)
    assert.equal(await remaining(verify(signerOf(app), 'none')), PER_CALLER_LIMIT - 1)
  })

  test('app-only calls spend the app budget; each app has its own', async () => {
    const [first, second] = [await makeApp(tier.domain), await makeApp(tier.domain)]
    assert.equal(await remaining(verify(signerOf(first), 'none')), PER_CALLER_LIMIT - 1)
    assert.equal(await remaining(verify(signerOf(first), 'access-or-none')), PER_CALLER_LIMIT - 2)
    assert.equal(await remaining(verify(signerOf(second), 'none')), PER_CALLER_LIMIT - 1)
  })

  test('a call signed with an access token spends that person’s budget within the app, not the app’s', async () => {
    const app = await makeApp(tier.domain)
    const [mine, theirs] = [await accessToken(app, person), await accessToken(app, other)]
    assert.equal(await remaining(verify(signerOf(app), 'access', { token: mine })), PER_CALLER_LIMIT - 1)
    assert.equal(await remaining(verify(signerOf(app), 'access', { token: mine })), PER_CALLER_LIMIT - 2)
    assert.equal(await remaining(verify(signerOf(app), 'access-or-none', { token: theirs })), PER_CALLER_LIMIT - 1)
    // The app's own budget was left alone.
    assert.equal(await remaining(verify(signerOf(app), 'none')), PER_CALLER_LIMIT - 1)
  })

  test('a request token approved by a person still charges the app: it acts for no one yet', async () => {
    const app = await makeApp(tier.domain, { callbackUrls: ['https://client.example/cb'] })
    const { requestToken } = await issueRequestToken(tier.domain, signedInput(tier, { ...signerOf(app), path: '/oauth/request_token', oauth: { oauth_callback: 'oob' } }))
    assert.equal(await tier.domain.stores.requestTokens.authorize(requestToken.token, person.id, 'v', tier.clock.nowMs()), true)
    assert.equal(await remaining(verify(signerOf(app), 'none')), PER_CALLER_LIMIT - 1)
    const verified = await verify(signerOf(app), 'request', { token: { key: requestToken.token, secret: requestToken.secret } })
    assert.equal(verified.token.userId, person.id)
    assert.equal(verified.limit?.remaining, PER_CALLER_LIMIT - 2)
  })

  test('a replay is refused with the state of the limit and gives its count back', async () => {
    const app = await makeApp(tier.domain)
    const input = signedInput(tier, { ...signerOf(app), method: 'GET', path: VERIFY, nonce: 'charged-once' })
    const charge = { tokenKind: 'none' as const, charge: PER_CALLER }
    assert.equal((await verifySignedRequest(tier.domain, input, charge)).limit?.remaining, PER_CALLER_LIMIT - 1)
    const error = await verifySignedRequest(tier.domain, input, charge).then(
      () => assert.fail('the replay was accepted'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof ServiceError)
    assert.equal(error.code, 32)
    assert.equal(error.detail, 'nonce replayed')
    assert.equal(error.rateLimit?.remaining, PER_CALLER_LIMIT - 2, 'the replay was counted before its nonce was checked')
    assert.equal(await remaining(verify(signerOf(app), 'none')), PER_CALLER_LIMIT - 2, '…and then given back')
  })

  test('a nonce is remembered for as long as its request is timely: a replay at the end of the window is refused', async () => {
    const app = await makeApp(tier.domain)
    const input = signedInput(tier, { ...signerOf(app), method: 'GET', path: VERIFY, nonce: 'remembered-to-the-end' })
    await verifySignedRequest(tier.domain, input, { tokenKind: 'none', charge: null })
    tier.clock.advance(295_000)
    try {
      await assertServiceError(verifySignedRequest(tier.domain, input, { tokenKind: 'none', charge: null }), 32)
    } finally {
      tier.clock.advance(-295_000)
    }
  })
})

describe('a nonce store that started now and holds one nonce (domain tier)', () => {
  let tier: DomainTier
  let app: AppRecord
  let results: OAuth1VerificationResult[]

  const observer = quietObserver({ oauth1Verification: (_endpoint, result) => void results.push(result) })
  const verify = (options: Partial<SignOptions> = {}) =>
    verifySignedRequest(tier.domain, signedInput(tier, { ...signerOf(app), method: 'GET', path: VERIFY, ...options }), { tokenKind: 'none', charge: PER_CALLER })

  before(async () => {
    // As after a restart: the store's epoch is the start of the clock, and it has room for one nonce.
    const clock = testClock(FIXED_START_MS)
    const storage = await openStorage({ keyring: testKeyring(), databaseUrl: 'sqlite::memory:', nonceEpochMs: clock.nowMs(), nonceBudget: { capacity: 1 }, settleNonceEpoch: false })
    const domain = createDomainDeps(storage, testDomainSettings(), clock, observer)
    tier = { domain, clock, nowSeconds: () => Math.floor(clock.nowMs() / 1000), close: () => storage.runtime.close() }
    app = await makeApp(tier.domain)
  })
  after(() => tier.close())

  test('signed before the epoch, though timely: 135, reported as untimely, and its count given back', async () => {
    results = []
    const error = await verify({ timestamp: tier.nowSeconds() - 10 }).then(
      () => assert.fail('accepted'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof ServiceError)
    assert.equal(error.code, 135)
    assert.equal(error.detail, 'signed before the nonce store was complete (restart)')
    assert.equal(error.rateLimit?.remaining, PER_CALLER_LIMIT - 1)
    assert.deepEqual(results, ['timestamp_out_of_bounds'])
    await tier.domain.signatureFailures!.settled()
    const [failure] = await tier.domain.signatureFailures!.recent(app.id, tier.clock.nowMs())
    assert.equal(failure?.reason, 'timestamp_out_of_bounds')
    assert.equal(failure?.method, 'GET')
    // Stamped at the epoch, the same call is accepted, and finds the earlier count given back.
    assert.equal((await verify()).limit?.remaining, PER_CALLER_LIMIT - 1)
    assert.deepEqual(results, ['timestamp_out_of_bounds', 'ok'])
  })

  test('a store that cannot take the nonce fails the call, and gives its count back', async () => {
    await assert.rejects(verify({ nonce: 'no-room' }), StorageUnavailableError)
    // Once the first nonce has expired there is room again: the failed call cost nothing.
    tier.clock.advance(400_000)
    assert.equal((await verify({ nonce: 'room-again' })).limit?.remaining, PER_CALLER_LIMIT - 2)
  })
})
