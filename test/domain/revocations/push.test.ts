// The revocation push (issue 49, item 3): every end of a credential reaches a registered endpoint
// as one event, signed as X signs its webhooks, through the real delivery loop and a real HTTP
// receiver; on both backends (the PostgreSQL pass of test/domain).
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, afterEach, beforeEach, describe, test } from 'node:test'
import { Redis } from 'ioredis'
import { revokeAuthorization, revokeBearerToken, updateUser } from '../../../src/domain/admin/people.ts'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { invalidateAccessToken } from '../../../src/domain/oauth1/invalidate-access-token.ts'
import { handOutBearerToken } from '../../../src/domain/oauth2/bearer-token.ts'
import { invalidateBearerToken } from '../../../src/domain/oauth2/invalidate-bearer-token.ts'
import { regenerateClientSecret, setOAuth2Client } from '../../../src/domain/oauth2-user/clients.ts'
import { revokeUserToken } from '../../../src/domain/oauth2-user/revoke.ts'
import { deleteApp, rotateAppKeys, updateApp } from '../../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../../src/domain/registry/owner-token.ts'
import { startRevocationDelivery, type RevocationDelivery } from '../../../src/domain/revocations/delivery.ts'
import { addWebhook, replayWebhook, verifyWebhook, webhookStatus } from '../../../src/domain/revocations/webhooks.ts'
import { revocationChannel } from '../../../src/storage/revocation-types.ts'
import { inputOf, openDomainTier, signedInput, TIER_URL, type DomainTier } from '../../helpers/domain-tier.ts'
import { eventually } from '../../helpers/eventually.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { allowedCode, basic, exchange, oauth2Client, refresh, tokenInput } from '../../helpers/oauth2-user.ts'
import { openTestDomain } from '../../helpers/test-app.ts'
import { hmacOf, startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts'

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

describe('revocation push', { timeout: 60_000 }, () => {
  let tier: DomainTier
  let receiver: WebhookReceiver
  let delivery: RevocationDelivery | undefined
  const errors: unknown[] = []

  beforeEach(async () => {
    tier = await openDomainTier({ startMs: Date.now() })
    receiver = await startWebhookReceiver()
  })
  afterEach(async () => {
    await delivery?.stop()
    delivery = undefined
    await receiver.close()
    await tier.close()
    assert.deepEqual(errors.splice(0), [], 'the delivery loop met no error')
  })

  /** An endpoint for every event, its receiver given the secret, verified. */
  async function registered(target = receiver): Promise<string> {
    const { endpoint, secret } = await addWebhook(tier.domain, { url: target.url })
    target.secret = secret
    await verifyWebhook(tier.domain, endpoint.id)
    return endpoint.id
  }

  // The loop waits its backoff on the real clock; the tier's clock stands still.
  const startDelivery = () => {
    delivery = startRevocationDelivery({ ...tier.domain, clock: { nowMs: () => Date.now() } }, { holder: 'test', publish: tier.domain.runtime.publishRevocation, onError: (_m, error) => errors.push(error) })
  }

  test('every end of a credential arrives as one event, signed with the endpoint secret, naming the token by its SHA-256 and never holding a secret', async () => {
    await registered()
    startDelivery()
    const { domain } = tier
    const person = (await makeUser(domain)).user
    const app = await makeApp(domain)
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const secrets: string[] = [consumer.key, consumer.secret, receiver.secret!]
    const expected: Array<{ type: string; kind: string; sha256?: string; app?: string | null; user?: string | null }> = []

    // OAuth 1.0a: POST /1.1/oauth/invalidate_token, signed with the token it ends.
    const { token } = await issueOwnerToken(domain, app.id)
    secrets.push(token.token, token.secret)
    await invalidateAccessToken(domain, signedInput(tier, { consumer, token: { key: token.token, secret: token.secret }, path: '/1.1/oauth/invalidate_token' }))
    expected.push({ type: 'access_token.invalidated', kind: 'oauth1_access_token', sha256: sha256(token.token), app: app.id, user: app.ownerId })

    // App-only bearer: POST /oauth2/invalidate_token with the app's Basic credentials.
    const bearer = await handOutBearerToken(domain, app.id, null)
    secrets.push(bearer.token)
    const body = new URLSearchParams({ access_token: bearer.token }).toString()
    await invalidateBearerToken(domain, inputOf('POST', `${TIER_URL}/oauth2/invalidate_token`, { ...FORM, authorization: basic(consumer.key, consumer.secret) }, body))
    expected.push({ type: 'bearer_token.invalidated', kind: 'bearer', sha256: sha256(bearer.token), app: app.id, user: null })

    // The operator ends the next bearer token (admin API, CLI).
    const second = await handOutBearerToken(domain, app.id, null)
    secrets.push(second.token)
    await revokeBearerToken(domain, app.id)
    expected.push({ type: 'bearer_token.invalidated', kind: 'bearer', sha256: sha256(second.token), app: app.id, user: null })

    // OAuth 2.0 user context: the client revokes its access token; a refresh token used twice ends its grant.
    const client = await oauth2Client(domain, { type: 'confidential' })
    secrets.push(client.clientSecret!)
    const tokens = await exchange(domain, client, await allowedCode(domain, client, person))
    secrets.push(tokens.access_token, tokens.refresh_token!)
    await revokeUserToken(domain, tokenInput(client, { token: tokens.access_token }, '/2/oauth2/revoke'))
    expected.push({ type: 'oauth2_token.revoked', kind: 'oauth2_access_token', sha256: sha256(tokens.access_token), app: client.app.id, user: person.id })
    const again = await exchange(domain, client, await allowedCode(domain, client, person))
    secrets.push(again.access_token, again.refresh_token!)
    const refreshed = await refresh(domain, client, again.refresh_token)
    secrets.push(refreshed.access_token, refreshed.refresh_token!)
    await assert.rejects(refresh(domain, client, again.refresh_token))
    expected.push({ type: 'oauth2_refresh_token.reused', kind: 'oauth2_refresh_token', sha256: sha256(again.refresh_token!), app: client.app.id, user: person.id })

    // The client secret regenerated; the client turned off (its grants end).
    const regenerated = await regenerateClientSecret(domain, { appId: client.app.id })
    secrets.push(regenerated!.newSecret!)
    expected.push({ type: 'oauth2_client.secret_rotated', kind: 'client_secret', app: client.app.id, user: null })
    await setOAuth2Client(domain, { appId: client.app.id, setting: 'off' })
    expected.push({ type: 'oauth2_client.changed', kind: 'oauth2_grant', app: client.app.id, user: null })

    // A person withdraws an app (Connected apps, admin API); the operator disables a person.
    await issueOrReuseAccessToken(domain, { appId: app.id, userId: person.id, accessLevel: 'read' }, { via: 'owner_token' })
    await revokeAuthorization(domain, person.id, app.id)
    expected.push({ type: 'authorization.revoked', kind: 'authorization', app: app.id, user: person.id })
    await updateUser(domain, person.id, { disabled: true })
    expected.push({ type: 'user.disabled', kind: 'user', app: null, user: person.id })

    // The app's keys rotated, the app suspended, the app deleted.
    const rotated = await rotateAppKeys(domain, app.id)
    secrets.push(rotated.consumerKey, rotated.consumerSecret)
    expected.push({ type: 'app.keys_rotated', kind: 'consumer_key', app: app.id, user: null })
    await updateApp(domain, app.id, { isSuspended: true })
    expected.push({ type: 'app.suspended', kind: 'app', app: app.id, user: null })
    await deleteApp(domain, app.id)
    expected.push({ type: 'app.deleted', kind: 'app', app: app.id, user: null })

    const taken = await eventually(async () => {
      assert.equal(receiver.taken().length, expected.length, `${receiver.taken().length} of ${expected.length} events so far`)
      return receiver.taken()
    }, 20_000)
    assert.deepEqual(
      taken.map(({ event }) => ({ type: event.type, kind: event.credential.kind, ...(event.credential.sha256 ? { sha256: event.credential.sha256 } : {}), app: event.app_id, user: event.user_id })),
      expected,
      'one event per end, in the order they happened',
    )
    for (const { body, headers, event } of taken) {
      assert.equal(headers['x-latchkey-signature'], hmacOf(receiver.secret!, body), `${event.type}: signed with the endpoint's secret over the raw body`)
      assert.equal(headers['content-type'], 'application/json')
      assert.equal(headers['x-latchkey-event-id'], event.id)
      assert.match(event.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      assert.ok(Math.abs(Date.parse(event.at) - Date.now()) < 60_000, event.at)
      assert.deepEqual(Object.keys(event).sort(), ['app_id', 'at', 'credential', 'id', 'type', 'user_id'])
      for (const secret of secrets) assert.ok(!body.includes(secret) && !JSON.stringify(headers).includes(secret), `${event.type} holds no token, key or secret`)
    }
    assert.equal(new Set(taken.map(({ event }) => event.id)).size, taken.length, 'every event has its own id')
    const [status] = await webhookStatus(domain)
    assert.deepEqual([status?.pending, status?.failed, status?.lastError], [0, 0, null])
    assert.ok(status?.lastSuccessAtMs)
  })

  test("CRC: a receiver that answers the challenge with the secret's HMAC is verified; a wrong token or an error page is refused with what it answered, and nothing is sent to it", async () => {
    const { endpoint, secret } = await addWebhook(tier.domain, { url: receiver.url })
    receiver.secret = secret
    startDelivery()
    receiver.crc = 'wrong'
    await assert.rejects(verifyWebhook(tier.domain, endpoint.id), /failed the CRC challenge: its response_token is not sha256=base64\(HMAC-SHA256\(secret, crc_token\)\)/)
    receiver.crc = 'page'
    receiver.status = 404
    await assert.rejects(verifyWebhook(tier.domain, endpoint.id), /failed the CRC challenge: it answered HTTP 404: <h1>not here<\/h1>/)
    const closed = await startWebhookReceiver()
    await closed.close()
    const { endpoint: gone } = await addWebhook(tier.domain, { url: closed.url })
    await assert.rejects(verifyWebhook(tier.domain, gone.id), /failed the CRC challenge: cannot reach it/)
    await assert.rejects(addWebhook(tier.domain, { url: 'ftp://example.test/hook' }), /url must be an http or https URL/)
    await assert.rejects(addWebhook(tier.domain, { url: 'https://user:pw@example.test/hook' }), /without a user, password or fragment/)

    // An unverified endpoint's events wait: none is sent until its receiver answers the challenge.
    const app = await makeApp(tier.domain)
    await rotateAppKeys(tier.domain, app.id)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    assert.equal(receiver.posts.length, 0)
    const waiting = (await webhookStatus(tier.domain)).find((e) => e.id === endpoint.id)
    assert.deepEqual([waiting?.verifiedAtMs, waiting?.pending], [null, 1])
    receiver.crc = 'right'
    receiver.status = 200
    await verifyWebhook(tier.domain, endpoint.id)
    await eventually(async () => assert.deepEqual(receiver.taken().map((d) => d.event.type), ['app.keys_rotated']))
  })

  test('a receiver that answers 500, then comes back, gets every event in order with the same ids; its status shows the queue and the last error', async () => {
    const id = await registered()
    receiver.status = 500
    startDelivery()
    const apps = [await makeApp(tier.domain), await makeApp(tier.domain), await makeApp(tier.domain)]
    for (const app of apps) await rotateAppKeys(tier.domain, app.id)
    await eventually(async () => assert.ok(receiver.posts.length >= 2, 'tried twice'), 10_000)
    const [down] = await webhookStatus(tier.domain)
    assert.equal(down?.id, id)
    assert.equal(down?.pending, 3)
    assert.match(down?.lastError ?? '', /^HTTP 500: down for now$/)
    const first = receiver.posts[0]!.event.id
    assert.ok(receiver.posts.every((post) => post.event.id === first), 'the oldest event first, again and again: nothing overtakes it')
    receiver.status = 200
    const taken = await eventually(async () => {
      assert.equal(receiver.taken().length, 3)
      return receiver.taken()
    }, 15_000)
    assert.deepEqual(taken.map((d) => d.event.app_id), apps.map((a) => a.id), 'in the order they happened')
    assert.equal(taken[0]!.event.id, first, 'the retried event keeps its id')
    assert.equal(taken[0]!.body, receiver.posts[0]!.body, 'and its body, byte for byte')
    const [up] = await webhookStatus(tier.domain)
    assert.deepEqual([up?.pending, up?.failed], [0, 0])
  })

  test('an event not taken within the retention is marked failed and the next one goes; replay sends it again, same id', async () => {
    await registered()
    receiver.status = 500
    // The loop on the tier's clock, which moves only when told: past the retention in one step.
    delivery = startRevocationDelivery(tier.domain, { holder: 'test', onError: (_m, error) => errors.push(error) })
    const [old, recent] = [await makeApp(tier.domain), await makeApp(tier.domain)]
    await rotateAppKeys(tier.domain, old.id)
    await eventually(async () => assert.equal(receiver.posts.length, 1))
    tier.clock.advance(tier.domain.settings.revocationRetentionHours * 3_600_000 + 1_000)
    await eventually(async () => assert.equal(receiver.posts.length, 2, 'tried once more, past the retention'))
    const status = await eventually(async () => {
      const [found] = await webhookStatus(tier.domain)
      assert.deepEqual([found?.pending, found?.failed], [0, 1], 'the old event failed: past the retention when its attempt failed')
      return found
    })
    receiver.status = 200
    await rotateAppKeys(tier.domain, recent.id)
    await eventually(async () => assert.deepEqual(receiver.taken().map((d) => d.event.app_id), [recent.id], 'the next one goes'))
    const firstId = receiver.posts[0]!.event.id
    assert.equal(await replayWebhook(tier.domain, status!.id, { failed: true }), 1)
    await eventually(async () => assert.deepEqual(receiver.taken().map((d) => d.event.id).slice(1), [firstId]))
    const [after] = await webhookStatus(tier.domain)
    assert.deepEqual([after?.pending, after?.failed], [0, 0])
  })

  test('an endpoint for one app gets only that app\'s events', async () => {
    const [mine, other] = [await makeApp(tier.domain), await makeApp(tier.domain)]
    const { endpoint, secret } = await addWebhook(tier.domain, { url: receiver.url, appId: mine.id })
    receiver.secret = secret
    await verifyWebhook(tier.domain, endpoint.id)
    startDelivery()
    await rotateAppKeys(tier.domain, other.id)
    await rotateAppKeys(tier.domain, mine.id)
    await eventually(async () => assert.equal(receiver.taken().length, 1))
    await new Promise((resolve) => setTimeout(resolve, 1_200))
    assert.deepEqual(receiver.taken().map((d) => d.event.app_id), [mine.id])
  })
})

describe('revocation push: the Redis channel', { timeout: 30_000 }, () => {
  const cleanups: Array<() => Promise<unknown>> = []
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  test('with Redis, each event is published on <prefix>revocations, the same JSON a webhook gets', async (t) => {
    const opened = await openTestDomain()
    cleanups.push(() => opened.close())
    if (!opened.redis) return t.skip('no Redis in this pass (the PostgreSQL + Redis pass runs it)')
    const subscriber = new Redis(opened.redis.url)
    cleanups.push(() => subscriber.quit())
    const messages: string[] = []
    subscriber.on('message', (_channel: string, message: string) => messages.push(message))
    await subscriber.subscribe(revocationChannel(opened.redis.keyPrefix))
    const receiver = await startWebhookReceiver()
    cleanups.push(() => receiver.close())
    const { endpoint, secret } = await addWebhook(opened.domain, { url: receiver.url })
    receiver.secret = secret
    await verifyWebhook(opened.domain, endpoint.id)
    const delivery = startRevocationDelivery(opened.domain, { holder: 'test', publish: opened.domain.runtime.publishRevocation, onError: () => {} })
    cleanups.push(() => delivery.stop())
    const app = await makeApp(opened.domain)
    await updateApp(opened.domain, app.id, { isSuspended: true })
    await eventually(async () => assert.deepEqual([messages.length, receiver.taken().length], [1, 1]))
    assert.equal(messages[0], receiver.taken()[0]!.body)
    assert.equal(JSON.parse(messages[0]!).type, 'app.suspended')
  })
})
