import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { send, signRequest, signedFetch } from '../helpers/oauth1-client.ts'
import { cliEnv } from '../helpers/cli.ts'
import { startExample, type ExampleProcess } from '../helpers/example-process.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'

/** Starts examples/resource-server.ts on the test server's database and waits for its URL. */
const startOnDatabase = (databaseUrl: string, redis: Record<string, string>) =>
  startExample(process.execPath, ['--import', 'tsx', 'examples/resource-server.ts'], cliEnv({ LATCHKEY_DATABASE_URL: databaseUrl, PORT: '0', ...redis }))

describe('the exported verifier, in the example resource server of examples/', () => {
  let latchkey: TestServer
  let example: ExampleProcess
  let app: AppRecord

  before(async () => {
    latchkey = await startTestServer()
    app = await makeApp(latchkey.domain)
    const redis: Record<string, string> = latchkey.redis ? { LATCHKEY_REDIS_URL: latchkey.redis.url, LATCHKEY_REDIS_KEY_PREFIX: latchkey.redis.keyPrefix } : {}
    example = await startOnDatabase(latchkey.dbPath, redis)
  })
  after(async () => {
    await example?.stop()
    await latchkey?.close()
  })

  test('a bearer token issued by Latchkey is accepted, app-only', async () => {
    const issued = await send({
      method: 'POST',
      url: `${latchkey.url}/oauth2/token`,
      headers: { authorization: `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    })
    const answer = await send({ method: 'GET', url: `${example.url}/hello`, headers: { authorization: `Bearer ${issued.json.access_token}` } })
    assert.equal(answer.status, 200)
    assert.deepEqual(answer.json.caller, { context: 'app', tokenKind: 'bearer', appId: app.id, consumerKey: app.consumerKey, appName: app.name, accessLevel: app.accessLevel })
  })

  test('an OAuth 1.0a user-context request signed for the resource server URL is accepted', async () => {
    const { token, owner } = await issueOwnerToken(latchkey.domain, app.id)
    const answer = await signedFetch({
      consumer: { key: app.consumerKey, secret: app.consumerSecret },
      token: { key: token.token, secret: token.secret },
      method: 'POST',
      url: `${example.url}/statuses/update?trim_user=1`,
      body: { status: 'Hello Ladies + Gentlemen' },
    })
    assert.equal(answer.status, 200, answer.text)
    assert.equal(answer.json.hello, owner.screenName)
    assert.equal(answer.json.caller.userId, owner.id)
  })

  test('an invalidated token gets the exact Twitter error, 401 code 89', async () => {
    const { token } = await issueOwnerToken(latchkey.domain, app.id)
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const tokenKey = { key: token.token, secret: token.secret }
    assert.equal((await signedFetch({ consumer, token: tokenKey, url: `${latchkey.url}/1.1/oauth/invalidate_token.json` })).status, 200)
    const answer = await signedFetch({ consumer, token: tokenKey, method: 'GET', url: `${example.url}/hello` })
    assert.equal(answer.status, 401)
    assert.deepEqual(answer.json, { errors: [{ code: 89, message: 'Invalid or expired token.' }] })
  })

  test('a request signed for another URL gets 401 code 32, and no credentials 400 code 215; the same request signed for its URL 200', async () => {
    const { token } = await issueOwnerToken(latchkey.domain, app.id)
    const signed = () =>
      signRequest({
        consumer: { key: app.consumerKey, secret: app.consumerSecret },
        token: { key: token.token, secret: token.secret },
        method: 'GET',
        url: `${example.url}/hello?a=1`,
      })
    await assertRefusedOnlyWhenBroken((variant) => (variant === 'broken' ? send({ ...signed(), url: `${example.url}/hello?a=2` }) : send(signed())), { status: 401, code: 32 })
    await assertRefusedOnlyWhenBroken((variant) => (variant === 'broken' ? send({ method: 'GET', url: `${example.url}/hello?a=1` }) : send(signed())), { status: 400, code: 215 })
  })
})
