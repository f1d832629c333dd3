import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { exchangeVerifier, MAX_VERIFIER_FAILURES } from '../../../src/domain/oauth1/exchange-verifier.ts'
import { invalidateAccessToken } from '../../../src/domain/oauth1/invalidate-access-token.ts'
import { issueRequestToken } from '../../../src/domain/oauth1/request-token.ts'
import type { AppRecord, UserRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { assertRefusedOnlyWhenBrokenCall, assertServiceError, openDomainTier, signedInput, type DomainTier } from '../../helpers/domain-tier.ts'

describe('the OAuth 1.0a flow as use cases (domain tier)', () => {
  let tier: DomainTier
  let app: AppRecord
  let person: UserRecord
  const consumer = () => ({ key: app.consumerKey, secret: app.consumerSecret })

  before(async () => {
    tier = await openDomainTier()
    app = await makeApp(tier.domain, { callbackUrls: ['https://client.example/cb'] })
    person = (await makeUser(tier.domain)).user
  })
  after(() => tier.close())

  /** A request token issued through the use case, approved by `person` with `verifier`. */
  async function approvedRequestToken(verifier = 'the-verifier', callback = 'oob') {
    const { requestToken: record } = await issueRequestToken(tier.domain, signedInput(tier, { consumer: consumer(), path: '/oauth/request_token', oauth: { oauth_callback: callback } }))
    assert.equal(await tier.domain.stores.requestTokens.authorize(record.token, person.id, verifier, tier.clock.nowMs()), true)
    return { key: record.token, secret: record.secret, verifier }
  }
  const exchange = (rt: { key: string; secret: string }, verifier: string | undefined) =>
    exchangeVerifier(tier.domain, signedInput(tier, { consumer: consumer(), token: rt, path: '/oauth/access_token', ...(verifier === undefined ? {} : { oauth: { oauth_verifier: verifier } }) }))

  test('a request token expires after its time to live (900 s by default)', async () => {
    const { requestToken: record } = await issueRequestToken(tier.domain, signedInput(tier, { consumer: consumer(), path: '/oauth/request_token', oauth: { oauth_callback: 'https://client.example/cb?x=1' } }))
    assert.equal(record.expiresAtMs, tier.clock.nowMs() + 900_000)
    assert.equal(record.callback, 'https://client.example/cb?x=1')
    assert.equal(record.status, 'issued')
    assert.equal(record.accessLevel, app.accessLevel)
  })

  test('an approved request token and its verifier give the person an access token, once', async () => {
    const rt = await approvedRequestToken()
    const { accessToken, user } = await exchange(rt, rt.verifier)
    assert.equal(user.id, person.id)
    assert.equal(accessToken.appId, app.id)
    assert.match(accessToken.token, new RegExp(`^${person.id}-[A-Za-z0-9]{30}$`))
    await assertServiceError(exchange(rt, rt.verifier), 89)
  })

  test('a wrong verifier gets 32 and leaves the token usable until the third', async () => {
    const rt = await approvedRequestToken()
    const result = await assertRefusedOnlyWhenBrokenCall((v) => exchange(rt, v === 'broken' ? 'wrong' : rt.verifier), 32)
    assert.equal(result.user.id, person.id)
  })

  test(`after ${MAX_VERIFIER_FAILURES} wrong verifiers the right one gets 89`, async () => {
    const rt = await approvedRequestToken()
    for (let i = 0; i < MAX_VERIFIER_FAILURES; i++) await assertServiceError(exchange(rt, `wrong${i}`), 32)
    await assertServiceError(exchange(rt, rt.verifier), 89)
  })

  test('a missing verifier gets 32', async () => {
    const rt = await approvedRequestToken()
    await assertServiceError(exchange(rt, undefined), 32)
  })

  test('an expired request token gets 89', async () => {
    const rt = await approvedRequestToken()
    tier.clock.advance(900_001)
    try {
      await assertServiceError(exchange(rt, rt.verifier), 89)
    } finally {
      tier.clock.advance(-900_001)
    }
  })

  test('the same person and app get the same access token again, until it is invalidated', async () => {
    const first = await exchange(...(await tokenAndVerifier()))
    const second = await exchange(...(await tokenAndVerifier()))
    assert.equal(second.accessToken.token, first.accessToken.token)
    const signedWith = { key: first.accessToken.token, secret: first.accessToken.secret }
    const invalidated = await invalidateAccessToken(tier.domain, signedInput(tier, { consumer: consumer(), token: signedWith, path: '/1.1/oauth/invalidate_token' }))
    assert.equal(invalidated.accessToken, first.accessToken.token)
    await assertServiceError(invalidateAccessToken(tier.domain, signedInput(tier, { consumer: consumer(), token: signedWith, path: '/1.1/oauth/invalidate_token' })), 89)
    const third = await exchange(...(await tokenAndVerifier()))
    assert.notEqual(third.accessToken.token, first.accessToken.token)
    const events = (await tier.domain.stores.audit.list({ appId: app.id, userId: person.id, limit: 100 })).map((e) => e.event)
    assert.ok(events.includes('access_token.invalidated'))
  })

  async function tokenAndVerifier(): Promise<[{ key: string; secret: string }, string]> {
    const rt = await approvedRequestToken(`v${Math.random().toString(36).slice(2)}`)
    return [rt, rt.verifier]
  }

  test('a callback that is not registered gets 415; a desktop app may only use oob (417)', async () => {
    const callback = (value: string, by = app) =>
      issueRequestToken(tier.domain, signedInput(tier, { consumer: { key: by.consumerKey, secret: by.consumerSecret }, path: '/oauth/request_token', oauth: { oauth_callback: value } }))
    await assertRefusedOnlyWhenBrokenCall((v) => callback(v === 'broken' ? 'https://evil.example/cb' : 'https://client.example/cb'), 415)
    const desktop = await makeApp(tier.domain, { type: 'desktop', callbackUrls: [] })
    await assertRefusedOnlyWhenBrokenCall((v) => callback(v === 'broken' ? 'https://client.example/cb' : 'oob', desktop), 417)
  })

  test('x_auth_access_type can lower the level, never raise it; anything else is refused', async () => {
    const readWrite = await makeApp(tier.domain, { accessLevel: 'read-write' })
    const read = await makeApp(tier.domain, { accessLevel: 'read' })
    const level = async (by: AppRecord, requested: string) =>
      (await issueRequestToken(tier.domain, signedInput(tier, { consumer: { key: by.consumerKey, secret: by.consumerSecret }, path: `/oauth/request_token?x_auth_access_type=${requested}`, oauth: { oauth_callback: 'oob' } }))).requestToken.accessLevel
    assert.equal(await level(readWrite, 'read'), 'read')
    assert.equal(await level(readWrite, 'write'), 'read-write')
    assert.equal(await level(read, 'write'), 'read')
    await assertServiceError(level(readWrite, 'admin'), 1003)
  })
})
