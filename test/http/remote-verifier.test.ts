// createRemoteVerifier: the verifier an API process uses with only a URL and its resource server's
// credentials (docs/check-request.md), against the service over a real socket.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { ServiceError } from '../../src/errors/service-error.ts'
import { createRemoteVerifier, RemoteCheckError, type RemoteVerifier } from '../../src/remote-verifier.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { issueEveryCredential, makeApp, type EveryCredential } from '../helpers/fixtures.ts'
import { signRequest } from '../helpers/oauth1-client.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'
import { eventually } from '../helpers/eventually.ts'
import { startRevocationDelivery } from '../../src/domain/revocations/delivery.ts'
import { updateUser } from '../../src/domain/admin/people.ts'

const API = 'https://api.example.org'

describe('createRemoteVerifier', () => {
  let server: TestServer
  let resourceServer: AppRecord
  let alice: EveryCredential
  let verifier: RemoteVerifier

  before(async () => {
    server = await startTestServer()
    resourceServer = await makeApp(server.domain, { isResourceServer: true })
    alice = await issueEveryCredential(server.domain)
    verifier = createRemoteVerifier({ url: server.url, clientId: resourceServer.consumerKey, clientSecret: resourceServer.consumerSecret })
  })
  after(() => server.close())

  const signedRequest = (path: string) => {
    const signed = signRequest({ consumer: alice.consumer, token: alice.token, method: 'GET', url: `${API}${path}` })
    return { method: 'GET', url: signed.url, headers: signed.headers }
  }
  const refusalOf = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => assert.fail('accepted'),
      (error: unknown) => error,
    )
    assert.ok(error instanceof ServiceError, String(error))
    return { status: error.status, code: error.code, message: error.message }
  }

  test('a signed request is the person, their app and the token kind; the same request again is a replay', async () => {
    const request = signedRequest('/1.1/statuses/home_timeline.json?count=5')
    assert.deepEqual(await verifier.verify(request), {
      context: 'user',
      tokenKind: 'oauth1_user',
      appId: alice.app.id,
      consumerKey: alice.app.consumerKey,
      appName: alice.app.name,
      accessLevel: alice.app.accessLevel,
      userId: alice.user.id,
      screenName: alice.user.screenName,
    })
    assert.deepEqual(await refusalOf(verifier.verify(request)), { status: 401, code: 32, message: 'Could not authenticate you.' })
  })

  test('an OAuth 2.0 user token comes with its scopes; an unknown bearer token is refused with 401 code 89', async () => {
    const caller = await verifier.verify({ method: 'GET', url: `${API}/2/tweets`, headers: { authorization: `Bearer ${alice.userAccessToken}` } })
    assert.equal(caller.tokenKind, 'oauth2_user')
    assert.deepEqual(caller.scopes, ['users.read'])
    const refused = await refusalOf(verifier.verify({ method: 'GET', url: `${API}/2/tweets`, headers: { authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAunknown' } }))
    assert.equal(refused.status, 401)
    assert.equal(refused.code, 89)
  })

  test('with cacheSeconds, a bearer answer is reused until forget() drops it for an ended credential of its app', async () => {
    const bob = await issueEveryCredential(server.domain)
    const caching = createRemoteVerifier({ url: server.url, clientId: resourceServer.consumerKey, clientSecret: resourceServer.consumerSecret, cacheSeconds: 60 })
    const request = { method: 'GET', url: `${API}/2/tweets`, headers: { authorization: `Bearer ${bob.bearer}` } }
    assert.equal((await caching.verify(request)).tokenKind, 'bearer')
    const invalidated = await server.send({
      method: 'POST',
      url: `${server.url}/oauth2/invalidate_token`,
      headers: { authorization: `Basic ${Buffer.from(`${bob.consumer.key}:${bob.consumer.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `access_token=${encodeURIComponent(bob.bearer)}`,
    })
    assert.equal(invalidated.status, 200)
    assert.equal((await caching.verify(request)).appId, bob.app.id, 'the cached answer, until told')
    caching.forget({ app_id: alice.app.id, user_id: null })
    assert.equal((await caching.verify(request)).appId, bob.app.id, "another app's end drops nothing of bob's")
    caching.forget({ app_id: bob.app.id, user_id: null })
    assert.equal((await refusalOf(caching.verify(request))).code, 89, 'asked again once forgotten')
  })

  test("with the deployment's Redis, a cached answer is dropped as soon as the credential's end is published", async (t) => {
    if (!server.redis) return t.skip('no Redis in this pass (the PostgreSQL + Redis pass runs it)')
    const carol = await issueEveryCredential(server.domain)
    const delivery = startRevocationDelivery(server.domain, { holder: 'test', publish: server.domain.runtime.publishRevocation, onError: () => {} })
    const listening = createRemoteVerifier({
      url: server.url,
      clientId: resourceServer.consumerKey,
      clientSecret: resourceServer.consumerSecret,
      cacheSeconds: 300,
      redis: server.redis,
    })
    try {
      const request = { method: 'GET', url: `${API}/2/tweets`, headers: { authorization: `Bearer ${carol.userAccessToken}` } }
      // Cached once the subscription is up (it empties the cache when it connects).
      await eventually(async () => {
        await listening.verify(request)
        assert.equal((await listening.verify(request)).userId, carol.user.id)
      })
      await updateUser(server.domain, carol.user.id, { disabled: true })
      await eventually(async () => assert.equal((await refusalOf(listening.verify(request))).status, 401))
    } finally {
      await delivery.stop()
      await listening.close()
    }
  })

  test('charge: the x-rate-limit-* values of the caller come back', async () => {
    const charging = createRemoteVerifier({ url: server.url, clientId: resourceServer.consumerKey, clientSecret: resourceServer.consumerSecret, charge: true })
    const first = await charging.verifyWithLimit({ method: 'GET', url: `${API}/2/tweets`, headers: { authorization: `Bearer ${alice.userAccessToken}` } })
    const second = await charging.verifyWithLimit({ method: 'GET', url: `${API}/2/tweets`, headers: { authorization: `Bearer ${alice.userAccessToken}` } })
    assert.equal(first.rateLimit!.remaining - 1, second.rateLimit!.remaining)
    assert.ok(first.rateLimit!.resetAtMs > Date.now())
  })

  test("the service unreachable, or the resource server's own credentials refused, is a RemoteCheckError, not a refusal of the caller", async () => {
    const wrong = createRemoteVerifier({ url: server.url, clientId: resourceServer.consumerKey, clientSecret: 'wrong' })
    await assert.rejects(wrong.verify(signedRequest('/x')), (error: unknown) => error instanceof RemoteCheckError && /403/.test(error.message))
    const nowhere = createRemoteVerifier({ url: 'http://127.0.0.1:9', clientId: 'x', clientSecret: 'y', timeoutMs: 2000 })
    await assert.rejects(nowhere.verify(signedRequest('/x')), RemoteCheckError)
  })

  test('runs in a process with no database, no keyring and no LATCHKEY_* setting', async () => {
    const request = signedRequest('/1.1/lists/list.json')
    const script = `
      const { createRemoteVerifier } = await import(${JSON.stringify(join(process.cwd(), 'src/remote-verifier.ts'))})
      const verifier = createRemoteVerifier(${JSON.stringify({ url: server.url, clientId: resourceServer.consumerKey, clientSecret: resourceServer.consumerSecret })})
      console.log(JSON.stringify(await verifier.verify(${JSON.stringify(request)})))`
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('LATCHKEY_')))
    // Asynchronously: the service answering it runs in this very process.
    const child = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env, encoding: 'utf8' })
    assert.equal(JSON.parse(child.stdout).userId, alice.user.id)
  })
})
