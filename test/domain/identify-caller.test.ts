import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { identifyCaller, identifyTokenInvalidator } from '../../src/domain/identify-caller.ts'
import { issueOrReuseAccessToken } from '../../src/domain/oauth1/issue-access-token.ts'
import { issueOrReuseBearerToken } from '../../src/domain/oauth2/bearer-token.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { updateApp } from '../../src/domain/registry/apps.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { allowedCode, exchange, oauth2Client } from '../helpers/oauth2-user.ts'
import { assertRefusedOnlyWhenBrokenCall, inputOf, openDomainTier, signedInput, TIER_URL, type DomainTier } from '../helpers/domain-tier.ts'

const VERIFY = '/1.1/account/verify_credentials.json'
const basic = (app: AppRecord) => `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`
const FORM = 'application/x-www-form-urlencoded'
const tokenInputOf = (app: AppRecord) => inputOf('POST', `${TIER_URL}/oauth2/token`, { authorization: basic(app), 'content-type': FORM }, 'grant_type=client_credentials')

describe('identifyCaller (domain tier)', () => {
  let tier: DomainTier
  let app: AppRecord
  let person: UserRecord
  let access: { key: string; secret: string }
  let bearer: string
  const consumer = () => ({ key: app.consumerKey, secret: app.consumerSecret })
  const bearerInput = (token: string) => inputOf('GET', `${TIER_URL}${VERIFY}`, { authorization: `Bearer ${token}` })

  before(async () => {
    tier = await openDomainTier({ settings: { rateLimits: { '/account/verify_credentials': 3 } } })
    app = await makeApp(tier.domain, { accessLevel: 'read-write-directmessages' })
    person = (await makeUser(tier.domain)).user
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: person.id, accessLevel: 'read' }, { via: 'owner_token' })
    access = { key: issued.token, secret: issued.secret }
    bearer = (await issueOrReuseBearerToken(tier.domain, tokenInputOf(app))).bearerToken.token
  })
  after(() => tier.close())

  test('a bearer token: the app alone, at the app level, by its token; charged to the app, or not at all', async () => {
    const charged = await identifyCaller(tier.domain, bearerInput(bearer), '/account/verify_credentials')
    assert.deepEqual(charged.caller, { context: 'app', kind: 'bearer', app, accessLevel: 'read-write-directmessages', credential: bearer })
    assert.deepEqual([charged.limit?.limit, charged.limit?.remaining], [3, 2])
    // Each app its own budget.
    const other = await makeApp(tier.domain)
    const otherBearer = (await issueOrReuseBearerToken(tier.domain, tokenInputOf(other))).bearerToken.token
    assert.equal((await identifyCaller(tier.domain, bearerInput(otherBearer), '/account/verify_credentials')).limit?.remaining, 2)
    assert.equal((await identifyCaller(tier.domain, bearerInput(bearer), '/account/verify_credentials')).limit?.remaining, 1)
    const free = await identifyCaller(tier.domain, bearerInput(bearer), null)
    assert.equal(free.caller.credential, bearer)
    assert.equal(free.limit, undefined)
  })

  test('a bearer token that is not live is refused (89), whatever signed requests would say', async () => {
    await assertRefusedOnlyWhenBrokenCall((v) => identifyCaller(tier.domain, bearerInput(v === 'broken' ? 'AAAAAAAAAAAAAAAAAAAAAunknown%3Dx' : bearer), null), 89)
  })

  test("signed with an access token: the person, at the token's level (not the app's), by the token; charged to the person", async () => {
    const input = () => signedInput(tier, { consumer: consumer(), token: access, method: 'GET', path: VERIFY })
    const { caller, limit } = await identifyCaller(tier.domain, input(), '/account/verify_credentials')
    assert.equal(caller.context, 'user')
    assert.equal(caller.app.id, app.id)
    assert.equal(caller.context === 'user' ? caller.user.id : undefined, person.id)
    assert.equal(caller.accessLevel, 'read')
    assert.equal(caller.credential, access.key)
    // The person's own budget: the app's calls above did not spend it.
    assert.deepEqual([limit?.limit, limit?.remaining], [3, 2])
    assert.equal((await identifyCaller(tier.domain, input(), null)).limit, undefined)
  })

  test('signed by the consumer alone: the app, at its level, by its consumer key', async () => {
    const { caller, limit } = await identifyCaller(tier.domain, signedInput(tier, { consumer: consumer(), method: 'GET', path: VERIFY }), null)
    assert.deepEqual(caller, { context: 'app', kind: 'oauth1_app', app, accessLevel: 'read-write-directmessages', credential: app.consumerKey })
    assert.equal(limit, undefined)
  })

  test('a wrong signature gets 32; an unknown access token 89', async () => {
    await assertRefusedOnlyWhenBrokenCall(
      (v) => identifyCaller(tier.domain, signedInput(tier, { consumer: { key: app.consumerKey, secret: v === 'broken' ? 'wrong' : app.consumerSecret }, method: 'GET', path: VERIFY }), null),
      32,
    )
    await assertRefusedOnlyWhenBrokenCall(
      (v) => identifyCaller(tier.domain, signedInput(tier, { consumer: consumer(), token: v === 'broken' ? { key: '1-unknown', secret: 'x' } : access, method: 'GET', path: VERIFY }), null),
      89,
    )
  })
  test("an OAuth 2.0 user token: its scopes within the app's current level, and the level they amount to, not the app's", async () => {
    const client = await oauth2Client(tier.domain, { accessLevel: 'read-write-directmessages' })
    const callerOf = async (scope: string) => {
      const { access_token: token } = await exchange(tier.domain, client, await allowedCode(tier.domain, client, person, scope))
      return async () => {
        const { caller } = await identifyCaller(tier.domain, bearerInput(token), null)
        return { accessLevel: caller.accessLevel, scopes: caller.context === 'user' ? caller.scopes : undefined }
      }
    }
    const reader = await callerOf('tweet.read users.read')
    const writer = await callerOf('tweet.read tweet.write')
    const messenger = await callerOf('tweet.write dm.read')
    assert.deepEqual(await reader(), { accessLevel: 'read', scopes: ['tweet.read', 'users.read'] })
    assert.deepEqual(await writer(), { accessLevel: 'read-write', scopes: ['tweet.read', 'tweet.write'] })
    assert.deepEqual(await messenger(), { accessLevel: 'read-write-directmessages', scopes: ['tweet.write', 'dm.read'] })
    await updateApp(tier.domain, client.app.id, { accessLevel: 'read-write' })
    assert.deepEqual(await messenger(), { accessLevel: 'read-write', scopes: ['tweet.write', 'dm.read'] })
    await updateApp(tier.domain, client.app.id, { accessLevel: 'read' })
    assert.deepEqual(await writer(), { accessLevel: 'read', scopes: ['tweet.read'] }, 'lowered to read: no write scope left')
    assert.deepEqual(await messenger(), { accessLevel: 'read', scopes: ['dm.read'] })
  })
})

describe('identifyTokenInvalidator (domain tier)', () => {
  let tier: DomainTier
  before(async () => {
    tier = await openDomainTier()
  })
  after(() => tier.close())
  const INVALIDATE = '/oauth2/invalidate_token'
  const invalidator = (authorization: string) => identifyTokenInvalidator(tier.domain, inputOf('POST', `${TIER_URL}${INVALIDATE}`, { authorization, 'content-type': FORM }, 'access_token=x'), INVALIDATE)

  test("by Basic credentials or by the app's bearer token: the app, no person, charged to that app's own budget", async () => {
    const first = await makeApp(tier.domain)
    const second = await makeApp(tier.domain)
    const byBasic = await invalidator(basic(first))
    assert.deepEqual([byBasic.app.id, byBasic.userId, byBasic.via, byBasic.limit?.remaining], [first.id, null, 'basic', 299])
    const secondBearer = (await issueOrReuseBearerToken(tier.domain, tokenInputOf(second))).bearerToken.token
    const byBearer = await invalidator(`Bearer ${secondBearer}`)
    assert.deepEqual([byBearer.app.id, byBearer.userId, byBearer.via, byBearer.limit?.remaining], [second.id, null, 'bearer', 299])
    assert.equal((await invalidator(basic(first))).limit?.remaining, 298)
  })

  test("signed by a person who is not the app's owner: 403 code 220, with the state of the limit already charged", async () => {
    const app = await makeApp(tier.domain)
    const stranger = (await makeUser(tier.domain)).user
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: stranger.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    const signed = signedInput(tier, { consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: issued.token, secret: issued.secret }, path: INVALIDATE })
    await assert.rejects(identifyTokenInvalidator(tier.domain, signed, INVALIDATE), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.deepEqual([error.status, error.code, error.detail], [403, 220, 'not the app owner'])
      assert.deepEqual([error.rateLimit?.limit, error.rateLimit?.remaining], [300, 299])
      return true
    })
  })
})
