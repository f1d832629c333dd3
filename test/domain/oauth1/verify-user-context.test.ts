import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { verifyUserContext } from '../../../src/domain/oauth1/verify-user-context.ts'
import { issueOrReuseBearerToken } from '../../../src/domain/oauth2/bearer-token.ts'
import { ServiceError } from '../../../src/errors/service-error.ts'
import type { AppRecord, UserRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { assertRefusedOnlyWhenBrokenCall, inputOf, openDomainTier, signedInput, TIER_URL, type DomainTier } from '../../helpers/domain-tier.ts'

const VERIFY = '/1.1/account/verify_credentials.json'

describe('verifyUserContext (domain tier)', () => {
  let tier: DomainTier
  let app: AppRecord
  let person: UserRecord
  let access: { key: string; secret: string }
  const consumer = () => ({ key: app.consumerKey, secret: app.consumerSecret })
  const signedAs = (token?: { key: string; secret: string }) => signedInput(tier, { consumer: consumer(), ...(token ? { token } : {}), method: 'GET', path: VERIFY })

  before(async () => {
    tier = await openDomainTier({ settings: { rateLimits: { '/account/verify_credentials': 2 } } })
    app = await makeApp(tier.domain)
    person = (await makeUser(tier.domain)).user
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: person.id, accessLevel: 'read' }, { via: 'owner_token' })
    access = { key: issued.token, secret: issued.secret }
  })
  after(() => tier.close())

  test("signed with an access token: the app, the person, their token, charged to the person's budget of verify_credentials", async () => {
    const verified = await verifyUserContext(tier.domain, signedAs(access))
    assert.equal(verified.app.id, app.id)
    assert.equal(verified.user.id, person.id)
    assert.equal(verified.accessToken.token, access.key)
    assert.equal(verified.accessToken.accessLevel, 'read')
    assert.deepEqual([verified.limit?.limit, verified.limit?.remaining], [2, 1])
    // Another person of the same app has a budget of their own.
    const other = (await makeUser(tier.domain)).user
    const theirs = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: other.id, accessLevel: 'read' }, { via: 'owner_token' })
    assert.equal((await verifyUserContext(tier.domain, signedAs({ key: theirs.token, secret: theirs.secret }))).limit?.remaining, 1)
    assert.equal((await verifyUserContext(tier.domain, signedAs(access))).limit?.remaining, 0)
    await assert.rejects(verifyUserContext(tier.domain, signedAs(access)), (error: unknown) => error instanceof ServiceError && error.code === 88 && error.status === 429)
  })

  test('an app-only bearer token cannot act for a person: 403 code 220', async () => {
    const other = await makeApp(tier.domain)
    const basic = `Basic ${Buffer.from(`${other.consumerKey}:${other.consumerSecret}`).toString('base64')}`
    const tokenInput = inputOf('POST', `${TIER_URL}/oauth2/token`, { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials')
    const bearer = (await issueOrReuseBearerToken(tier.domain, tokenInput)).bearerToken.token
    await assert.rejects(verifyUserContext(tier.domain, inputOf('GET', `${TIER_URL}${VERIFY}`, { authorization: `Bearer ${bearer}` })), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.deepEqual([error.status, error.code, error.message], [403, 220, 'Your credentials do not allow access to this resource.'])
      return true
    })
  })

  test('signed without an access token, or with an unknown one: 89', async () => {
    const fresh = await makeUser(tier.domain)
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: fresh.user.id, accessLevel: 'read' }, { via: 'owner_token' })
    const token = { key: issued.token, secret: issued.secret }
    await assertRefusedOnlyWhenBrokenCall((v) => verifyUserContext(tier.domain, signedAs(v === 'broken' ? undefined : token)), 89)
    await assertRefusedOnlyWhenBrokenCall((v) => verifyUserContext(tier.domain, signedAs(v === 'broken' ? { key: '1-unknown', secret: 'x' } : token)), 89)
  })
})
