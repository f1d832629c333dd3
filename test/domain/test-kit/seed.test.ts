import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { verifyUserContext } from '../../../src/domain/oauth1/verify-user-context.ts'
import { verifyBearer } from '../../../src/domain/oauth2/verify-bearer.ts'
import { issueUserToken } from '../../../src/domain/oauth2-user/token.ts'
import { verifyUserBearer } from '../../../src/domain/oauth2-user/user-token.ts'
import { verifyPassword } from '../../../src/domain/passwords.ts'
import { applySeed, seedLimits, SeedError, type SeedResult } from '../../../src/domain/test-kit/seed.ts'
import { inputOf, openDomainTier, signedInput, TIER_URL, type DomainTier } from '../../helpers/domain-tier.ts'

// The seed of the test kit (issue 47 item 2) on the real stores, SQLite and (storage tier) PostgreSQL.

const FIXED = {
  userId: '1234567890123',
  consumerKey: 'SeedConsumerKey0123456789',
  consumerSecret: 'SeedConsumerSecret0123456789012345678901234567890a',
  accessToken: '1234567890123-SeedAccessToken01234567890123456',
  accessSecret: 'SeedAccessSecret0123456789012345678901234567',
  bearer: `${'A'.repeat(21)}SeedBearer0123456789%2BxyZ%2F0123456%3D${'SeedTail0123456789'.repeat(3)}abcdef`,
  clientId: 'SeedClientId01234567890123456789ab',
  clientSecret: 'SeedClientSecret0123456789012345678901234567890abc',
  userAccess: `SeedUserAccess${'0123456789'.repeat(7)}ab`,
  userRefresh: `SeedUserRefresh${'0123456789'.repeat(7)}a`,
}

const FIXED_SEED = {
  people: [{ screen_name: 'alice', name: 'Alice Seed', user_id: FIXED.userId, password: 'correct horse battery' }],
  apps: [
    {
      name: 'Seeded app',
      owner: 'alice',
      type: 'web',
      access_level: 'read-write',
      callbacks: ['https://client.example/callback'],
      sign_in: true,
      oauth2_client_type: 'confidential',
      consumer_key: FIXED.consumerKey,
      consumer_secret: FIXED.consumerSecret,
      client_id: FIXED.clientId,
      client_secret: FIXED.clientSecret,
    },
  ],
  credentials: {
    access_tokens: [{ app: 'Seeded app', person: 'alice', token: FIXED.accessToken, secret: FIXED.accessSecret }],
    bearer_tokens: [{ app: 'Seeded app', token: FIXED.bearer }],
    oauth2_grants: [{ app: 'Seeded app', person: 'alice', scopes: ['tweet.read', 'users.read', 'offline.access'], access_token: FIXED.userAccess, refresh_token: FIXED.userRefresh }],
  },
  limits: { multiplier: 2, endpoints: { '/2/users/me': 10 } },
}

const GENERATED_SEED = {
  people: [{ screen_name: 'bob' }, { screen_name: 'carol' }],
  apps: [
    { name: 'Generated app', owner: 'bob', oauth2_client_type: 'confidential' },
    { name: 'Public app', owner: 'bob', oauth2_client_type: 'public' },
  ],
  credentials: {
    access_tokens: [{ app: 'Generated app', person: 'carol' }],
    bearer_tokens: [{ app: 'Generated app' }],
    oauth2_grants: [
      { app: 'Generated app', person: 'carol', scopes: ['users.read', 'offline.access'] },
      { app: 'Public app', person: 'carol', scopes: ['users.read'] },
    ],
  },
}

const VERIFY = '/1.1/account/verify_credentials.json'
const form = { 'content-type': 'application/x-www-form-urlencoded' }
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

describe('applySeed (domain tier)', () => {
  let tier: DomainTier
  beforeEach(async () => void (tier = await openDomainTier()))
  afterEach(() => tier.close())

  /** Every credential of the result works where a client would use it. */
  async function assertWorks(result: SeedResult, appIndex = 0): Promise<void> {
    const app = result.apps[appIndex]!
    const access = result.credentials.access_tokens[0]!
    const verified = await verifyUserContext(
      tier.domain,
      signedInput(tier, { consumer: { key: app.consumer_key, secret: String(app.consumer_secret) }, token: { key: access.token, secret: access.secret }, method: 'GET', path: VERIFY }),
    )
    assert.equal(verified.user.id, access.user_id, 'the seeded OAuth 1.0a token signs a verify_credentials request that passes')
    const bearer = result.credentials.bearer_tokens[0]!
    assert.equal((await verifyBearer(tier.domain, `Bearer ${bearer.token}`)).app.id, bearer.app_id, 'the seeded bearer token works')
    const grant = result.credentials.oauth2_grants[0]!
    assert.equal((await verifyUserBearer(tier.domain, `Bearer ${grant.access_token}`)).user.id, grant.user_id, 'the seeded OAuth 2.0 token works on /2/users/me')
    const refreshBody = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(grant.refresh_token) }).toString()
    const refreshed = await issueUserToken(tier.domain, inputOf('POST', `${TIER_URL}/2/oauth2/token`, { ...form, authorization: basic(String(app.client_id), String(app.client_secret)) }, refreshBody))
    assert.match(refreshed.answer.access_token, /^[A-Za-z0-9]{86}$/, 'the seeded client id and secret refresh the seeded grant')
  }

  test('every value fixed: the result holds each as given, and each credential works', async () => {
    const result = await applySeed(tier.domain, FIXED_SEED)
    assert.deepEqual(result.people, [{ user_id: FIXED.userId, screen_name: 'alice', name: 'Alice Seed', password: 'correct horse battery' }])
    const app = result.apps[0]!
    assert.deepEqual(
      [app.name, app.owner, app.type, app.access_level, app.callbacks, app.sign_in, app.client_type, app.consumer_key, app.consumer_secret, app.client_id, app.client_secret],
      ['Seeded app', FIXED.userId, 'web', 'read-write', ['https://client.example/callback'], true, 'confidential', FIXED.consumerKey, FIXED.consumerSecret, FIXED.clientId, FIXED.clientSecret],
    )
    assert.deepEqual(result.credentials.access_tokens, [
      { app: 'Seeded app', app_id: app.app_id, person: 'alice', user_id: FIXED.userId, access_level: 'read-write', token: FIXED.accessToken, secret: FIXED.accessSecret },
    ])
    assert.equal(result.credentials.bearer_tokens[0]?.token, FIXED.bearer)
    const grant = result.credentials.oauth2_grants[0]!
    assert.deepEqual([grant.client_id, grant.access_token, grant.refresh_token, grant.scopes], [FIXED.clientId, FIXED.userAccess, FIXED.userRefresh, ['tweet.read', 'users.read', 'offline.access']])
    assert.deepEqual(seedLimits(result), { multiplier: 2, endpoints: { '/2/users/me': 10 } })
    const alice = await tier.domain.stores.users.findById(FIXED.userId)
    assert.ok(alice && (await verifyPassword('correct horse battery', alice.passwordHash)), 'the person has the given password')
    await assertWorks(result)
  })

  test("every value generated: values of the service's own shapes, and each credential works", async () => {
    const result = await applySeed(tier.domain, GENERATED_SEED)
    const [bob, carol] = result.people
    assert.match(String(bob?.user_id), /^\d+$/)
    assert.ok(String(carol?.password).length >= 8, 'a generated password is returned')
    const app = result.apps[0]!
    assert.match(app.consumer_key, /^[A-Za-z0-9]{25}$/)
    assert.match(String(app.consumer_secret), /^[A-Za-z0-9]{50}$/)
    assert.match(String(app.client_id), /^[A-Za-z0-9]{34}$/)
    assert.match(String(app.client_secret), /^[A-Za-z0-9]{50}$/)
    assert.equal(result.apps[1]?.client_type, 'public')
    assert.equal(result.apps[1]?.client_secret, undefined, 'a public client has no secret')
    assert.match(result.credentials.access_tokens[0]!.token, new RegExp(`^${carol?.user_id}-[A-Za-z0-9]{30}$`))
    assert.equal(result.credentials.access_tokens[0]?.access_level, 'read', "the app's default level")
    assert.match(result.credentials.bearer_tokens[0]!.token, /^A{21}.*%3D[A-Za-z0-9]{60}$/)
    assert.equal(result.credentials.oauth2_grants[1]?.refresh_token, null, 'no refresh token without offline.access')
    assert.deepEqual(seedLimits(result), { multiplier: 1, endpoints: {} })
    await assertWorks(result)
    const publicGrant = result.credentials.oauth2_grants[1]!
    assert.equal((await verifyUserBearer(tier.domain, `Bearer ${publicGrant.access_token}`)).app.id, publicGrant.app_id)
  })

  test('seeding twice changes nothing and answers the same values, generated ones included', async () => {
    const seed = { ...GENERATED_SEED, people: [...GENERATED_SEED.people, ...FIXED_SEED.people], apps: [...GENERATED_SEED.apps, ...FIXED_SEED.apps] }
    const first = await applySeed(tier.domain, seed)
    const audit = await tier.domain.stores.audit.list({ limit: 1000 })
    tier.clock.advance(60_000)
    const second = await applySeed(tier.domain, seed)
    assert.deepEqual(second, first)
    assert.equal((await tier.domain.stores.audit.list({ limit: 1000 })).length, audit.length, 'nothing was written')
    assert.equal((await tier.domain.stores.users.list()).length, 3)
    assert.equal((await tier.domain.stores.apps.list()).length, 3)
  })

  test('a bad seed is refused with the path and reason of every bad field, and nothing is written', async () => {
    const bad = {
      people: [{ screen_name: 'not a screen name', password: 'short' }, { screen_name: 'dave', colour: 'blue' }],
      apps: [
        { name: 'One', owner: 'dave', consumer_key: 'too-short' },
        { name: 'Two', owner: 'dave', access_level: 'admin' },
        { name: 'Three', owner: 'dave', callbacks: ['https://fine.example/cb', 'javascript:alert(1)'] },
      ],
      credentials: {
        access_tokens: [{ app: 'Four', person: 'dave' }],
        oauth2_grants: [{ app: 'One', person: 'dave', scopes: ['users.read'], refresh_token: 'x'.repeat(86) }],
      },
      limits: { endpoints: { '/no/such/endpoint': 3 } },
    }
    const refusal = await applySeed(tier.domain, bad).then(
      () => assert.fail('the seed was applied'),
      (error: unknown) => error,
    )
    assert.ok(refusal instanceof SeedError)
    const paths = refusal.issues.map((issue) => issue.path)
    assert.deepEqual(paths.sort(), [
      'apps[0].consumer_key',
      'apps[1].access_level',
      'apps[2].callbacks[1]',
      'limits.endpoints["/no/such/endpoint"]',
      'people[0].password',
      'people[0].screen_name',
      'people[1].colour',
    ])
    assert.match(refusal.message, /^apps\[2\]\.callbacks\[1\]: .+$/m, 'one `path: reason` line per field')
    assert.equal(refusal.status, 400)
    assert.deepEqual(await tier.domain.stores.users.list(), [])

    // A list past its bound is refused before anyone is made (each person costs a password hash).
    const crowd = { people: Array.from({ length: 1001 }, (_, i) => ({ screen_name: `p${i}` })) }
    await assert.rejects(applySeed(tier.domain, crowd), (error: unknown) => error instanceof SeedError && /^people: .*1000/.test(error.message))

    // Fields right, references wrong: the second look names them.
    const unreferenced = { people: [{ screen_name: 'dave' }], apps: [{ name: 'One', owner: 'dave' }], credentials: bad.credentials }
    await assert.rejects(applySeed(tier.domain, unreferenced), (error: unknown) => {
      assert.ok(error instanceof SeedError)
      assert.deepEqual(error.issues.map((issue) => issue.path).sort(), ['credentials.access_tokens[0].app', 'credentials.oauth2_grants[0].app', 'credentials.oauth2_grants[0].refresh_token'])
      return true
    })
    assert.deepEqual(await tier.domain.stores.users.list(), [])
  })

  test('a seed that contradicts the database is refused with the path, and nothing is written', async () => {
    await applySeed(tier.domain, FIXED_SEED)
    const audit = (await tier.domain.stores.audit.list({ limit: 1000 })).length
    const contradicting = {
      people: [{ screen_name: 'ALICE', user_id: '99' }, { screen_name: 'erin' }],
      apps: [
        { name: 'Other app', owner: 'erin', consumer_key: FIXED.consumerKey },
        { name: 'Orphan', owner: 'nobody' },
      ],
      credentials: { access_tokens: [{ app: 'Other app', person: 'erin', access_level: 'read-write' }] },
    }
    await assert.rejects(applySeed(tier.domain, contradicting), (error: unknown) => {
      assert.ok(error instanceof SeedError)
      const paths = ['people[0].user_id', 'people[0].password', 'apps[1].owner', 'apps[0].consumer_key', 'credentials.access_tokens[0].access_level']
      assert.deepEqual(error.issues.map((issue) => issue.path), paths, error.message)
      return true
    })
    assert.equal((await tier.domain.stores.users.list()).length, 1, 'erin was not made')
    assert.equal((await tier.domain.stores.audit.list({ limit: 1000 })).length, audit)
  })

  test('a fixed token another app already holds is refused at its path, and nothing is written', async () => {
    await applySeed(tier.domain, FIXED_SEED)
    const audit = (await tier.domain.stores.audit.list({ limit: 1000 })).length
    const app = { name: 'Second app', owner: 'alice', access_level: 'read-write', oauth2_client_type: 'public' }
    const taken = {
      apps: [app],
      credentials: {
        access_tokens: [{ app: 'Second app', person: 'alice', token: FIXED.accessToken }],
        bearer_tokens: [{ app: 'Second app', token: FIXED.bearer }],
        oauth2_grants: [{ app: 'Second app', person: 'alice', scopes: ['users.read'], access_token: FIXED.userAccess }],
      },
    }
    await assert.rejects(applySeed(tier.domain, taken), (error: unknown) => {
      assert.ok(error instanceof SeedError)
      const paths = ['credentials.access_tokens[0].token', 'credentials.bearer_tokens[0].token', 'credentials.oauth2_grants[0].access_token']
      assert.deepEqual(error.issues.map((issue) => issue.path), paths, error.message)
      return true
    })
    assert.equal((await tier.domain.stores.apps.list()).length, 1, 'the second app was not made')
    assert.equal((await tier.domain.stores.audit.list({ limit: 1000 })).length, audit)
  })

  test("a person or app that exists takes the seed's name or settings where they differ, and keeps its keys", async () => {
    const first = await applySeed(tier.domain, GENERATED_SEED)
    const changed = { ...GENERATED_SEED, people: [{ screen_name: 'bob', name: 'Bob Renamed' }, { screen_name: 'carol' }], apps: [{ ...GENERATED_SEED.apps[0]!, callbacks: ['https://changed.example/cb'], sign_in: true }, GENERATED_SEED.apps[1]!] }
    const second = await applySeed(tier.domain, changed)
    const [before, after] = [first.apps[0]!, second.apps[0]!]
    assert.deepEqual([after.callbacks, after.sign_in], [['https://changed.example/cb'], true])
    assert.deepEqual([after.app_id, after.consumer_key, after.consumer_secret, after.client_id, after.client_secret], [before.app_id, before.consumer_key, before.consumer_secret, before.client_id, before.client_secret])
    assert.deepEqual(second.credentials, first.credentials, 'the credentials stay')
    assert.deepEqual(second.people[0], { ...first.people[0], name: 'Bob Renamed' }, 'a person takes the seed\'s name, and keeps their password')
  })

  test('a grant seeded before with other scopes or another refresh token is refused at those paths', async () => {
    await applySeed(tier.domain, FIXED_SEED)
    const [grant] = FIXED_SEED.credentials.oauth2_grants
    const changed = { ...FIXED_SEED, credentials: { oauth2_grants: [{ ...grant!, scopes: ['users.read', 'offline.access'], refresh_token: FIXED.userAccess.replace('Access', 'Other0') }] } }
    await assert.rejects(applySeed(tier.domain, changed), (error: unknown) => {
      assert.ok(error instanceof SeedError)
      assert.deepEqual(error.issues.map((issue) => issue.path), ['credentials.oauth2_grants[0].scopes', 'credentials.oauth2_grants[0].refresh_token'], error.message)
      return true
    })
  })
})
