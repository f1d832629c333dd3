import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { identifyCaller } from '../../src/domain/identify-caller.ts'
import { issueOrReuseAccessToken } from '../../src/domain/oauth1/issue-access-token.ts'
import { issueOrReuseBearerToken } from '../../src/domain/oauth2/bearer-token.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { assertRefusedOnlyWhenBrokenCall, inputOf, openDomainTier, signedInput, TIER_URL, type DomainTier } from '../helpers/domain-tier.ts'

const VERIFY = '/1.1/account/verify_credentials.json'
const basic = (app: AppRecord) => `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`

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
    const tokenInput = inputOf('POST', `${TIER_URL}/oauth2/token`, { authorization: basic(app), 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials')
    bearer = (await issueOrReuseBearerToken(tier.domain, tokenInput)).bearerToken.token
  })
  after(() => tier.close())

  test('a bearer token: the app alone, at the app level, by its token; charged to the app, or not at all', async () => {
    const charged = await identifyCaller(tier.domain, bearerInput(bearer), '/account/verify_credentials')
    assert.deepEqual(charged.caller, { context: 'app', app, accessLevel: 'read-write-directmessages', credential: bearer })
    assert.deepEqual([charged.limit?.limit, charged.limit?.remaining], [3, 2])
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
    assert.deepEqual(caller, { context: 'app', app, accessLevel: 'read-write-directmessages', credential: app.consumerKey })
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
})
