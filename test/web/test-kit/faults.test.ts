// X's failures on demand (src/web/test-kit/faults.ts): each kind on each endpoint family answers
// with X's body and headers, as a real refusal there is rendered; then the next call is normal.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createFaultQueue, type FaultRule } from '../../../src/web/test-kit/faults.ts'
import { createRequestJournal } from '../../../src/web/test-kit/journal.ts'
import { issueEveryCredential, makeApp, makeUser } from '../../helpers/fixtures.ts'
import { signRequest } from '../../helpers/oauth1-client.ts'
import { allowedCode, oauth2Client, REDIRECT } from '../../helpers/oauth2-user.ts'
import { injectedTestServer, type TestServer } from '../../helpers/test-app.ts'

const FORM = 'application/x-www-form-urlencoded'
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

describe("X's failures on demand", () => {
  let server: TestServer
  const faults = createFaultQueue()
  before(async () => {
    server = await injectedTestServer({ settings: { rateLimits: { '/1.1/account/verify_credentials': 75 } }, testKit: { faults, journal: createRequestJournal() } })
  })
  after(() => server.close())
  const inject = (rule: FaultRule) => faults.add(rule)

  const verifyCredentials = async () => {
    const issued = await issueEveryCredential(server.domain)
    return () => server.signedFetch({ consumer: issued.consumer, token: issued.token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
  }

  test('rate limited: 429 code 88 with the x-rate-limit-* headers of the route, a reset in the future; then the call is counted as usual', async () => {
    const call = await verifyCredentials()
    inject({ endpoint: 'GET /1.1/account/verify_credentials.json', times: 1, kind: 'rate_limited' })
    const refused = await call()
    assert.equal(refused.status, 429)
    assert.deepEqual(refused.json, { errors: [{ code: 88, message: 'Rate limit exceeded' }] })
    assert.equal(refused.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.equal(refused.headers.get('x-rate-limit-limit'), '75')
    assert.equal(refused.headers.get('x-rate-limit-remaining'), '0')
    assert.ok(Number(refused.headers.get('x-rate-limit-reset')) > server.domain.clock.nowMs() / 1000, 'the reset is in the future')
    const normal = await call()
    assert.equal(normal.status, 200)
    assert.equal(normal.headers.get('x-rate-limit-remaining'), '74', 'the injected failure spent nothing of the budget')
  })

  test('over capacity: 503 code 130, as many times as asked, then normal', async () => {
    const app = await makeApp(server.domain, { callbackUrls: ['https://client.example/cb'] })
    const requestToken = () =>
      server.signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    inject({ endpoint: 'POST /oauth/request_token', times: 2, kind: 'over_capacity' })
    for (const refused of [await requestToken(), await requestToken()]) {
      assert.equal(refused.status, 503)
      assert.deepEqual(refused.json, { errors: [{ code: 130, message: 'Over capacity' }] })
    }
    const normal = await requestToken()
    assert.equal(normal.status, 200, normal.text)
    assert.ok(normal.form.oauth_token)
    assert.deepEqual(faults.list(), [], 'a spent fault is gone')
  })

  test('invalid or expired token: 401 code 89 with its WWW-Authenticate; the same signed request (its nonce unspent) then passes', async () => {
    const issued = await issueEveryCredential(server.domain)
    const signed = signRequest({ consumer: issued.consumer, token: issued.token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
    inject({ endpoint: 'GET /1.1/account/verify_credentials.json', times: 1, kind: 'invalid_token' })
    const refused = await server.send(signed)
    assert.equal(refused.status, 401)
    assert.deepEqual(refused.json, { errors: [{ code: 89, message: 'Invalid or expired token.' }] })
    assert.match(refused.headers.get('www-authenticate') ?? '', /^OAuth realm=/)
    assert.equal((await server.send(signed)).status, 200)
  })

  test('token requested too often: 403 code 99 with its label on /oauth2/token; another endpoint is not touched; then a bearer token', async () => {
    const app = await makeApp(server.domain)
    const token = () => server.send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { authorization: basic(app.consumerKey, app.consumerSecret), 'content-type': FORM }, body: 'grant_type=client_credentials' })
    inject({ endpoint: 'POST /oauth2/token', times: 1, kind: 'too_often' })
    await server.send({ method: 'POST', url: `${server.url}/oauth2/invalidate_token`, headers: { authorization: basic(app.consumerKey, app.consumerSecret), 'content-type': FORM }, body: 'access_token=nothing' })
    assert.equal(faults.list().length, 1, 'a call to another endpoint does not spend the fault')
    const refused = await token()
    assert.equal(refused.status, 403)
    assert.equal(refused.text, '{"errors":[{"code":99,"message":"Unable to verify your credentials","label":"authenticity_token_error"}]}')
    const normal = await token()
    assert.equal(normal.status, 200)
    assert.equal(normal.json.token_type, 'bearer')
  })

  test("/2/oauth2/token: an invalid token is RFC 6749's body, rate limited too_many_requests with the headers; then the code is exchanged", async () => {
    const client = await oauth2Client(server.domain, { type: 'public' })
    const { user } = await makeUser(server.domain)
    const issued = await allowedCode(server.domain, client, user)
    const body = new URLSearchParams({ grant_type: 'authorization_code', code: issued.code, redirect_uri: REDIRECT, code_verifier: issued.verifier, client_id: client.clientId }).toString()
    const exchange = () => server.send({ method: 'POST', url: `${server.url}/2/oauth2/token`, headers: { 'content-type': FORM }, body })
    inject({ endpoint: 'POST /2/oauth2/token', times: 1, kind: 'invalid_token' })
    inject({ endpoint: 'POST /2/oauth2/token', times: 1, kind: 'rate_limited' })
    const invalid = await exchange()
    assert.equal(invalid.status, 400)
    assert.deepEqual(invalid.json, { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' })
    const limited = await exchange()
    assert.equal(limited.status, 429)
    assert.deepEqual(limited.json, { error: 'too_many_requests', error_description: 'Rate limit exceeded' })
    assert.equal(limited.headers.get('x-rate-limit-remaining'), '0')
    const normal = await exchange()
    assert.equal(normal.status, 200, normal.text)
    assert.equal(normal.json.token_type, 'bearer')
  })

  test("/2/users/me: v2's problem bodies (401 Unauthorized, 503), then the person", async () => {
    const issued = await issueEveryCredential(server.domain)
    const me = () => server.send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization: `Bearer ${issued.userAccessToken}` } })
    inject({ endpoint: 'GET /2/users/me', times: 1, kind: 'invalid_token' })
    inject({ endpoint: 'GET /2/users/me', times: 1, kind: 'over_capacity' })
    const unauthorized = await me()
    assert.equal(unauthorized.status, 401)
    assert.deepEqual(unauthorized.json, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' })
    const over = await me()
    assert.equal(over.status, 503)
    assert.deepEqual(over.json, { title: 'Over capacity', type: 'about:blank', status: 503, detail: 'Over capacity' })
    const normal = await me()
    assert.equal(normal.status, 200)
    assert.equal(normal.json.data.id, issued.user.id)
  })

  test('custom: any status, code and message, in the endpoint family\'s body', async () => {
    const call = await verifyCredentials()
    const message = 'To protect our users from spam and other malicious activity, this account is temporarily locked.'
    inject({ endpoint: 'GET /1.1/account/verify_credentials.json', times: 1, kind: 'custom', status: 403, code: 326, message })
    const refused = await call()
    assert.equal(refused.status, 403)
    assert.deepEqual(refused.json, { errors: [{ code: 326, message }] })
    assert.equal((await call()).status, 200)
  })
})

describe("an injected failure in the service's log", () => {
  test('a refusal with its reason at info, never an error with a stack, even for a 503', async () => {
    const faults = createFaultQueue()
    const logLines: string[] = []
    const server = await injectedTestServer({ logLines, testKit: { faults, journal: createRequestJournal() } })
    try {
      const issued = await issueEveryCredential(server.domain)
      faults.add({ endpoint: 'GET /1.1/account/verify_credentials.json', times: 1, kind: 'over_capacity' })
      const answer = await server.signedFetch({ consumer: issued.consumer, token: issued.token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
      assert.equal(answer.status, 503)
      const lines = logLines.map((line) => JSON.parse(line) as { level: number; msg: string; detail?: string; err?: unknown })
      assert.deepEqual(lines.filter((line) => line.level >= 40), [], 'nothing at warn or above')
      const refused = lines.find((line) => line.msg === 'request refused')
      assert.match(refused?.detail ?? '', /^injected by the test kit \(fault \d+\)$/)
      assert.equal(JSON.stringify(lines).includes('    at '), false, 'no stack trace')
    } finally {
      await server.close()
    }
  })
})
