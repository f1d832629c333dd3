import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOrReuseBearerToken } from '../../src/domain/oauth2/bearer-token.ts'
import { OAUTH1_ACCESS_TOKEN_HINT, introspectToken } from '../../src/domain/introspect.ts'
import { updateUser } from '../../src/domain/admin/people.ts'
import { deleteApp, updateApp } from '../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { allowedCode, exchange, oauth2Client } from '../helpers/oauth2-user.ts'
import { assertRefusedOnlyWhenBrokenCall, assertServiceError, inputOf, openDomainTier, TIER_URL, type DomainTier } from '../helpers/domain-tier.ts'

// RFC 7662 introspection as a use case (test/http/introspect.test.ts checks the same over HTTP).
const FORM = 'application/x-www-form-urlencoded'
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
/** Small enough that a test reaches it; each test's resource server has a budget of its own. */
const INTROSPECT_LIMIT = 4

describe('introspectToken (domain tier)', () => {
  let tier: DomainTier
  before(async () => {
    tier = await openDomainTier({ settings: { rateLimits: { '/oauth2/introspect': INTROSPECT_LIMIT } } })
  })
  after(() => tier.close())

  const resourceServer = () => makeApp(tier.domain, { isResourceServer: true })
  const introspect = (server: AppRecord, body: string, options: { secret?: string } = {}) =>
    introspectToken(
      tier.domain,
      inputOf('POST', `${TIER_URL}/oauth2/introspect`, { authorization: basic(server.consumerKey, options.secret ?? server.consumerSecret), 'content-type': FORM }, body),
    )
  const answerFor = async (server: AppRecord, token: string, hint?: string) =>
    (await introspect(server, `token=${encodeURIComponent(token)}${hint === undefined ? '' : `&token_type_hint=${hint}`}`)).answer
  /** An OAuth 1.0a access token, asked about as one. */
  const accessAnswerFor = (server: AppRecord, token: string) => answerFor(server, token, OAUTH1_ACCESS_TOKEN_HINT)
  const bearerOf = async (app: AppRecord) =>
    (await issueOrReuseBearerToken(tier.domain, inputOf('POST', `${TIER_URL}/oauth2/token`, { authorization: basic(app.consumerKey, app.consumerSecret), 'content-type': FORM }, 'grant_type=client_credentials'))).bearerToken
      .token

  test('a live bearer token: its type, client, app and the app level as scope; nothing about a person', async () => {
    const server = await resourceServer()
    const client = await makeApp(tier.domain, { accessLevel: 'read' })
    const token = await bearerOf(client)
    assert.deepEqual(await answerFor(server, token), { active: true, token_type: 'bearer', client_id: client.consumerKey, app_id: client.id, scope: 'read' })
    // The bearer token is found by its canonical form: its percent-encoded `=` in either case.
    assert.equal((await answerFor(server, token.replace('%3D', '%3d'))).active, true)
  })

  test('a live OAuth 1.0a access token asked about as one: its own token type, the person, and the level of the token, not of the app', async () => {
    const server = await resourceServer()
    const client = await makeApp(tier.domain, { accessLevel: 'read-write-directmessages' })
    const { token, owner } = await issueOwnerToken(tier.domain, client.id)
    await updateApp(tier.domain, client.id, { accessLevel: 'read' })
    assert.deepEqual(await accessAnswerFor(server, token.token), {
      active: true,
      token_type: 'urn:latchkey:token-type:oauth1-access-token',
      client_id: client.consumerKey,
      app_id: client.id,
      scope: token.accessLevel,
      user_id: owner.id,
      username: owner.screenName,
    })
    assert.equal(token.accessLevel, 'read-write-directmessages')
  })

  test('the public half of an OAuth 1.0a credential is not a bearer credential: without the hint, or with another, it is not active', async () => {
    const server = await resourceServer()
    const client = await makeApp(tier.domain)
    const { token } = await issueOwnerToken(tier.domain, client.id)
    for (const hint of [undefined, 'access_token', 'refresh_token', 'bearer']) assert.deepEqual(await answerFor(server, token.token, hint), { active: false }, String(hint))
    const another = await resourceServer()
    assert.equal((await accessAnswerFor(another, token.token)).active, true, 'the twin: asked about as what it is')
    const bearer = await bearerOf(client)
    assert.deepEqual(await accessAnswerFor(another, bearer), { active: false }, 'nor is a bearer token an OAuth 1.0a access token')
  })

  test('the access token of a disabled person is not active, and is again once they are enabled', async () => {
    const server = await resourceServer()
    const client = await makeApp(tier.domain)
    const { token, owner } = await issueOwnerToken(tier.domain, client.id)
    await updateUser(tier.domain, owner.id, { disabled: true })
    assert.deepEqual(await accessAnswerFor(server, token.token), { active: false })
    await updateUser(tier.domain, owner.id, { disabled: false })
    assert.equal((await accessAnswerFor(server, token.token)).active, true)
  })

  test('revoked tokens of both kinds, unknown values and no token at all are {active: false} and nothing more', async () => {
    const server = await resourceServer()
    const client = await makeApp(tier.domain)
    const bearer = await bearerOf(client)
    const { token } = await issueOwnerToken(tier.domain, client.id)
    assert.equal((await answerFor(server, bearer)).active, true)
    assert.equal((await accessAnswerFor(server, token.token)).active, true)
    await tier.domain.stores.bearerTokens.revoke(bearer, tier.clock.nowMs())
    await tier.domain.stores.accessTokens.revoke(token.token, tier.clock.nowMs())
    const server2 = await resourceServer()
    for (const value of [bearer, token.token, 'AAAAAAAAAAAAAAAAAAAAAunknown%3Dx', '123-unknown']) assert.deepEqual(await answerFor(server2, value), { active: false }, value)
    assert.deepEqual(await accessAnswerFor(await resourceServer(), token.token), { active: false })
    const server3 = await resourceServer()
    assert.deepEqual((await introspect(server3, 'token=')).answer, { active: false })
    assert.deepEqual((await introspect(server3, '')).answer, { active: false })
  })

  test("the tokens of a suspended app are not active, and are again once it is restored; a deleted app's neither", async () => {
    const server = await resourceServer()
    const client = await makeApp(tier.domain)
    const bearer = await bearerOf(client)
    const { token } = await issueOwnerToken(tier.domain, client.id)
    await updateApp(tier.domain, client.id, { isSuspended: true })
    assert.deepEqual(await answerFor(server, bearer), { active: false })
    assert.deepEqual(await accessAnswerFor(server, token.token), { active: false })
    await updateApp(tier.domain, client.id, { isSuspended: false })
    assert.equal((await answerFor(server, bearer)).active, true)
    const other = await resourceServer()
    assert.equal((await accessAnswerFor(other, token.token)).active, true)
    await deleteApp(tier.domain, client.id)
    assert.deepEqual(await answerFor(other, bearer), { active: false })
    assert.deepEqual(await accessAnswerFor(other, token.token), { active: false })
  })

  test("a user access token's scope follows its app's level: lowered to read, no write scope is reported", async () => {
    const server = await resourceServer()
    const client = await oauth2Client(tier.domain)
    const person = (await makeUser(tier.domain)).user
    const { access_token: token } = await exchange(tier.domain, client, await allowedCode(tier.domain, client, person, 'tweet.read tweet.write users.read'))
    const scopeOf = async () => {
      const answer = await answerFor(server, token)
      return answer.active ? answer.scope : 'not active'
    }
    assert.equal(await scopeOf(), 'tweet.read tweet.write users.read')
    await updateApp(tier.domain, client.app.id, { accessLevel: 'read' })
    assert.equal(await scopeOf(), 'tweet.read users.read')
  })

  test('only a registered resource server with its right secret may ask (403 code 99), and a suspended one may not', async () => {
    const server = await resourceServer()
    const client = await makeApp(tier.domain)
    const token = await bearerOf(client)
    await assertRefusedOnlyWhenBrokenCall((v) => answerFor(v === 'broken' ? client : server, token), 99)
    await assertRefusedOnlyWhenBrokenCall((v) => introspect(server, `token=${token}`, { secret: v === 'broken' ? 'wrong' : server.consumerSecret }), 99)
    const noCredentials = introspectToken(tier.domain, inputOf('POST', `${TIER_URL}/oauth2/introspect`, { 'content-type': FORM }, `token=${token}`))
    await assertServiceError(noCredentials, 99)
    // HTTP Basic only: client_id and client_secret in the body, which /oauth2/token accepts, are not read here.
    const inBody = `token=${token}&client_id=${server.consumerKey}&client_secret=${server.consumerSecret}`
    await assertServiceError(introspectToken(tier.domain, inputOf('POST', `${TIER_URL}/oauth2/introspect`, { 'content-type': FORM }, inBody)), 99)
    await updateApp(tier.domain, server.id, { isSuspended: true })
    await assertServiceError(answerFor(server, token), 99)
  })

  test("each call counts against the resource server's own budget; past it, 429 code 88 with the limit's state", async () => {
    const server = await resourceServer()
    const states = []
    for (let i = 0; i < INTROSPECT_LIMIT; i++) states.push((await introspect(server, 'token=x')).limit)
    // The limiters keep real time (not the tier's clock): the window of 15 minutes ends within 15 minutes from now.
    const resetAtMs = states[0]!.resetAtMs
    assert.ok(resetAtMs > Date.now() && resetAtMs <= Date.now() + 900_000, String(resetAtMs))
    assert.deepEqual(
      states.map((s) => ({ ...s, resetAtMs: 0 })),
      [3, 2, 1, 0].map((remaining) => ({ isAllowed: true, limit: INTROSPECT_LIMIT, remaining, resetAtMs: 0 })),
    )
    await assert.rejects(introspect(server, 'token=x'), (error: unknown) => {
      assert.ok(error instanceof ServiceError)
      assert.deepEqual([error.status, error.code, error.message], [429, 88, 'Rate limit exceeded'])
      assert.deepEqual({ ...error.rateLimit, resetAtMs: 0 }, { isAllowed: false, limit: INTROSPECT_LIMIT, remaining: 0, resetAtMs: 0 })
      return true
    })
    // Another resource server's budget is untouched.
    assert.equal((await introspect(await resourceServer(), 'token=x')).limit?.remaining, INTROSPECT_LIMIT - 1)
  })
})
