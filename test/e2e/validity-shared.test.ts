// Issue 31: the validity cache never outlives a write, on PostgreSQL + Redis. Two `serve` processes
// share one schema and one Redis prefix; instance A answers every call, from its cache the second
// time; what ends a credential is done on instance B or with the CLI (a third process): A refuses
// it at the very next request.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createDomainDeps } from '../../src/composition/root.ts'
import type { DomainDeps } from '../../src/domain/deps.ts'
import { openStorage } from '../../src/storage/open-stores.ts'
import type { Storage } from '../../src/storage/types.ts'
import { SHARED_BACKENDS_SKIP, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema, type TestRedisPrefix, type TestSchema } from '../helpers/backends.ts'
import { runCli } from '../helpers/cli.ts'
import { issueEveryCredential } from '../helpers/fixtures.ts'
import { testKeyring } from '../helpers/keys.ts'
import { send, signRequest } from '../helpers/oauth1-client.ts'
import { startServe, type ServeProcess } from '../helpers/serve-process.ts'
import { testDomainSettings } from '../helpers/test-app.ts'
import { ALL_ACCEPTED, CLI_ENDINGS, outcomes, type ValidityCalls } from '../helpers/validity.ts'

const PUBLIC = 'https://api.latchkey.test'
const FORWARDED = { 'x-forwarded-proto': 'https' }
const FORM = 'application/x-www-form-urlencoded'
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`

describe('validity on PostgreSQL + Redis: a credential ended on one instance or by the CLI is refused by the other at the next request', { skip: SHARED_BACKENDS_SKIP, timeout: 180_000 }, () => {
  let schema: TestSchema
  let keys: TestRedisPrefix
  let storage: Storage
  let domain: DomainDeps
  let a: ServeProcess
  let b: ServeProcess

  before(async () => {
    schema = await createTestSchema()
    keys = createTestRedisPrefix()
    storage = await openStorage({ keyring: testKeyring(), databaseUrl: schema.url, redisUrl: TEST_REDIS_URL, redisKeyPrefix: keys.prefix })
    domain = createDomainDeps(storage, testDomainSettings())
    const args = [
      ...['--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1', '--public-url', PUBLIC],
      ...['--database', schema.url, '--redis', TEST_REDIS_URL!, '--redis-key-prefix', keys.prefix],
      ...['--cookie-secret', 'validity-shared-cookie-secret-0123456789', '--log-level', 'warn', '--metrics-public'],
    ]
    ;[a, b] = await Promise.all([startServe(args), startServe(args)])
  })

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await storage?.runtime.close()
    await schema?.drop()
    await keys?.clean()
  })

  const cli = async (...args: string[]) => {
    const result = await runCli(args, { LATCHKEY_DATABASE_URL: schema.url, LATCHKEY_REDIS_URL: TEST_REDIS_URL!, LATCHKEY_REDIS_KEY_PREFIX: keys.prefix })
    assert.equal(result.code, 0, result.stderr)
  }

  /** A request to `instance` for the public URL of `path`. */
  const at = (instance: ServeProcess, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    send({ method: init.method ?? 'GET', url: `${instance.url}${path}`, headers: { ...FORWARDED, ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }) })

  /** An app with an owner token, a bearer token and an OAuth 2.0 user token of one person; the calls that use each, on A. */
  async function credentials() {
    const issued = await issueEveryCredential(domain)
    const { consumer, token, bearer, userAccessToken } = issued
    const signed = (instance: ServeProcess, path: string, method: string) => {
      const request = signRequest({ consumer, token, method, url: `${PUBLIC}${path}` })
      return send({ ...request, url: `${instance.url}${path}`, headers: { ...request.headers, ...FORWARDED } })
    }
    const calls: ValidityCalls = {
      signed: () => signed(a, '/1.1/account/verify_credentials.json', 'GET'),
      bearer: () => at(a, '/1.1/application/rate_limit_status.json', { headers: { authorization: `Bearer ${bearer}` } }),
      user: () => at(a, '/2/users/me', { headers: { authorization: `Bearer ${userAccessToken}` } }),
    }
    return { ...issued, calls, signedOn: signed }
  }

  /** How many lookups A's validity cache has answered itself (its /metrics). */
  const cacheHits = async () => {
    const { text } = await at(a, '/metrics')
    return Number(/^latchkey_validity_cache_lookups_total\{result="hit"\} (\d+)$/m.exec(text)?.[1] ?? 0)
  }

  test('invalidating the access token on B (POST /1.1/oauth/invalidate_token)', async () => {
    const { calls, signedOn } = await credentials()
    const hitsBefore = await cacheHits()
    assert.deepEqual(await outcomes(calls), ALL_ACCEPTED)
    assert.ok((await cacheHits()) - hitsBefore >= 3, 'A answered the second call of each kind from its cache')
    const answer = await signedOn(b, '/1.1/oauth/invalidate_token', 'POST')
    assert.equal(answer.status, 200, answer.text)
    assert.deepEqual(await outcomes(calls), { ...ALL_ACCEPTED, signed: '401 89' })
  })

  test('invalidating the bearer token on B (POST /oauth2/invalidate_token)', async () => {
    const { calls, consumer, bearer } = await credentials()
    assert.deepEqual(await outcomes(calls), ALL_ACCEPTED)
    const answer = await at(b, '/oauth2/invalidate_token', {
      method: 'POST',
      headers: { authorization: basic(consumer.key, consumer.secret), 'content-type': FORM },
      body: `access_token=${encodeURIComponent(bearer)}`,
    })
    assert.equal(answer.status, 200, answer.text)
    assert.deepEqual(await outcomes(calls), { ...ALL_ACCEPTED, bearer: '401 89' })
  })

  test('revoking the OAuth 2.0 user token on B (POST /2/oauth2/revoke)', async () => {
    const { calls, app, userAccessToken } = await credentials()
    assert.deepEqual(await outcomes(calls), ALL_ACCEPTED)
    const client = await storage.stores.oauth2Clients.findByAppId(app.id)
    const answer = await at(b, '/2/oauth2/revoke', { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams({ token: userAccessToken, client_id: client!.clientId }).toString() })
    assert.equal(answer.status, 200, answer.text)
    assert.deepEqual(await outcomes(calls), { ...ALL_ACCEPTED, user: '401' })
  })

  test('the CLI on another Redis database with the same key prefix is refused and changes nothing', async () => {
    const { app, calls } = await credentials()
    const otherDb = new URL(TEST_REDIS_URL!)
    otherDb.pathname = '/1'
    const result = await runCli(['app', 'update', app.id, '--suspended'], { LATCHKEY_DATABASE_URL: schema.url, LATCHKEY_REDIS_URL: otherDb.href, LATCHKEY_REDIS_KEY_PREFIX: keys.prefix })
    assert.notEqual(result.code, 0)
    assert.match(result.stderr, /give this process their Redis: this one does not hold their marker/)
    assert.equal((await storage.stores.apps.findById(app.id))?.isSuspended, false)
    assert.deepEqual(await outcomes(calls), ALL_ACCEPTED)
  })

  for (const { title, args, after: ended } of CLI_ENDINGS) {
    test(`with the CLI: ${title}`, async () => {
      const { app, user, calls } = await credentials()
      assert.deepEqual(await outcomes(calls), ALL_ACCEPTED)
      await cli(...args({ appId: app.id, userId: user.id }))
      assert.deepEqual(await outcomes(calls), ended)
    })
  }
})
