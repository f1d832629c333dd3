import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { exchangeVerifier, MAX_VERIFIER_FAILURES } from '../../../src/domain/oauth1/exchange-verifier.ts'
import { invalidateAccessToken } from '../../../src/domain/oauth1/invalidate-access-token.ts'
import { issueRequestToken } from '../../../src/domain/oauth1/request-token.ts'
import type { DomainDeps } from '../../../src/domain/deps.ts'
import { ServiceError } from '../../../src/errors/service-error.ts'
import type { AppRecord, UserRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { recordingObserver } from '../../helpers/recording-observer.ts'
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

  /** A request token issued through the use case, approved by `by` with `verifier`. */
  async function approvedRequestToken(verifier = 'the-verifier', callback = 'oob', by: UserRecord = person) {
    const { requestToken: record } = await issueRequestToken(tier.domain, signedInput(tier, { consumer: consumer(), path: '/oauth/request_token', oauth: { oauth_callback: callback } }))
    assert.equal(await tier.domain.stores.requestTokens.authorize(record.token, by.id, verifier, tier.clock.nowMs()), true)
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

  async function tokenAndVerifier(by: UserRecord = person): Promise<[{ key: string; secret: string }, string]> {
    const rt = await approvedRequestToken(`v${Math.random().toString(36).slice(2)}`, 'oob', by)
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
  /** The use cases with an observer that records the tokens issued and invalidated. */
  function observedDomain() {
    const observe = recordingObserver()
    return { deps: { ...tier.domain, observe }, events: observe.told }
  }
  /** The app's audit rows of these events, oldest first. */
  const auditRows = async (events: string[], of: AppRecord = app) =>
    (await tier.domain.stores.audit.list({ appId: of.id, limit: 100 })).filter((row) => events.includes(row.event)).reverse()
  const errorDetail = async (work: Promise<unknown>, code: number): Promise<string | undefined> => {
    const error = await work.then(() => assert.fail('expected a refusal'), (e: unknown) => e)
    assert.ok(error instanceof ServiceError, String(error))
    assert.equal(error.code, code, error.message)
    return error.detail
  }

  /**
   * The domain as one request sees it while another is served: `meanwhile` runs to its end after
   * this request's signature check and before its unit of work opens, where two requests with one
   * token can overlap. The stores are the real ones; only the order is fixed, on either backend.
   */
  const whileAnotherRequest = (meanwhile: () => Promise<unknown>, deps: DomainDeps = tier.domain): DomainDeps => ({
    ...deps,
    stores: {
      ...deps.stores,
      transaction: async <T>(work: Parameters<typeof deps.stores.transaction<T>>[0]): Promise<T> => {
        await meanwhile()
        return deps.stores.transaction(work)
      },
    },
  })

  test('issuing a request token: audited with the callback origin, the level and the address; counted; charged', async () => {
    const issuer = await makeApp(tier.domain, { callbackUrls: ['https://client.example/cb'], accessLevel: 'read-write' })
    const { deps, events } = observedDomain()
    const issue = (callback: string, query = '') =>
      issueRequestToken(deps, signedInput(tier, { consumer: { key: issuer.consumerKey, secret: issuer.consumerSecret }, path: `/oauth/request_token${query}`, oauth: { oauth_callback: callback } }))
    const first = await issue('https://client.example/cb?state=secret')
    await issue('oob', '?svc_auth_access_type=read')
    assert.deepEqual(events, ['issued:request_token', 'issued:request_token'])
    assert.deepEqual(first.limit && [first.limit.limit, first.limit.remaining], [300, 299])
    assert.deepEqual(
      (await auditRows(['request_token.issued'], issuer)).map((row) => [row.userId, row.address, row.detail]),
      [
        [null, '192.0.2.1', { callback: 'https://client.example', access_level: 'read-write' }],
        [null, '192.0.2.1', { callback: 'oob', access_level: 'read' }],
      ],
    )
  })

  test('a request token needs oauth_callback (215 naming it); a level other than read or write is refused naming the parameter', async () => {
    const issue = (oauth: Record<string, string>, query = '') => issueRequestToken(tier.domain, signedInput(tier, { consumer: consumer(), path: `/oauth/request_token${query}`, oauth }))
    await assertRefusedOnlyWhenBrokenCall((v) => issue(v === 'broken' ? {} : { oauth_callback: 'oob' }), 215)
    await assert.rejects(issue({ oauth_callback: 'oob' }, '?svc_auth_access_type=admin'), { code: 1003, message: 'svc_auth_access_type must be read or write' })
  })

  test('an exchange is audited (via exchange, reused or not, the address), counted and charged', async () => {
    const { deps, events } = observedDomain()
    const newcomer = (await makeUser(tier.domain)).user
    const exchangeBy = async () => {
      const [rt, verifier] = await tokenAndVerifier(newcomer)
      return exchangeVerifier(deps, signedInput(tier, { consumer: consumer(), token: rt, path: '/oauth/access_token', oauth: { oauth_verifier: verifier } }))
    }
    const first = await exchangeBy()
    const second = await exchangeBy()
    assert.equal(second.accessToken.token, first.accessToken.token)
    assert.deepEqual(events, ['issued:access_token', 'issued:access_token'])
    assert.equal(first.limit?.limit, 300)
    assert.equal(second.limit?.remaining, first.limit!.remaining - 1)
    const rows = (await auditRows(['access_token.issued'])).filter((row) => row.userId === newcomer.id)
    assert.deepEqual(
      rows.map((row) => [row.address, row.detail]),
      [
        ['192.0.2.1', { access_level: app.accessLevel, via: 'exchange', reused: false }],
        ['192.0.2.1', { access_level: app.accessLevel, via: 'exchange', reused: true }],
      ],
    )
  })

  test('a wrong verifier is logged with its count', async () => {
    const rt = await approvedRequestToken()
    assert.equal(await errorDetail(exchange(rt, 'wrong'), 32), `wrong or missing oauth_verifier (failure 1 of ${MAX_VERIFIER_FAILURES})`)
    assert.equal(await errorDetail(exchange(rt, 'wrong again'), 32), `wrong or missing oauth_verifier (failure 2 of ${MAX_VERIFIER_FAILURES})`)
  })

  test('a request token exchanged by another request after this one was checked: 89, one access token, one audit row', async () => {
    const fresh = (await makeUser(tier.domain)).user
    const rt = await approvedRequestToken('the-verifier', 'oob', fresh)
    const signed = () => signedInput(tier, { consumer: consumer(), token: rt, path: '/oauth/access_token', oauth: { oauth_verifier: rt.verifier } })
    const other = signed()
    const thisOne = exchangeVerifier(whileAnotherRequest(() => exchangeVerifier(tier.domain, other)), signed())
    assert.equal(await errorDetail(thisOne, 89), 'request token already exchanged, dead or expired')
    assert.equal((await auditRows(['access_token.issued'])).filter((row) => row.userId === fresh.id).length, 1)
  })

  test('invalidating an access token: audited with its level and person, counted, charged; invalidated by another request meanwhile: 89', async () => {
    const { deps, events } = observedDomain()
    const holder = (await makeUser(tier.domain)).user
    const { accessToken } = await exchange(...(await tokenAndVerifier(holder)))
    const signedWith = { key: accessToken.token, secret: accessToken.secret }
    const signed = () => signedInput(tier, { consumer: consumer(), token: signedWith, path: '/1.1/oauth/invalidate_token' })
    const other = signed()
    let answer: Awaited<ReturnType<typeof invalidateAccessToken>> | undefined
    const thisOne = invalidateAccessToken(
      whileAnotherRequest(async () => (answer = await invalidateAccessToken(deps, other)), deps),
      signed(),
    )
    assert.equal(await errorDetail(thisOne, 89), 'already invalidated')
    assert.deepEqual([answer?.accessToken, answer?.limit?.limit], [accessToken.token, 300])
    assert.deepEqual(events, ['invalidated:access_token:invalidate_token'])
    const rows = (await auditRows(['access_token.invalidated'])).filter((row) => row.userId === holder.id)
    assert.deepEqual(rows.map((row) => [row.address, row.detail]), [['192.0.2.1', { access_level: accessToken.accessLevel }]])
  })
})
