// POST /latchkey/check-request: a resource server in any language asks about a whole request it
// received (docs/check-request.md). Runs on both backends (npm test's PostgreSQL + Redis pass).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AppRecord } from '../../src/storage/records.ts'
import { issueEveryCredential, makeApp, type EveryCredential } from '../helpers/fixtures.ts'
import { signRequest, type SignOptions } from '../helpers/oauth1-client.ts'
import { injectedTestServer, type TestServer } from '../helpers/test-app.ts'

const basic = (app: AppRecord) => `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`
const API = 'https://api.example.org'

describe('POST /latchkey/check-request', () => {
  let server: TestServer
  let resourceServer: AppRecord
  let alice: EveryCredential

  before(async () => {
    server = await injectedTestServer({ settings: { rateLimits: { '/latchkey/resource-api': 3 } } })
    resourceServer = await makeApp(server.domain, { isResourceServer: true })
    alice = await issueEveryCredential(server.domain)
  })
  after(() => server.close())

  const check = (toCheck: unknown, caller: AppRecord = resourceServer, contentType = 'application/json') =>
    server.send({
      method: 'POST',
      url: `${server.url}/latchkey/check-request`,
      headers: { authorization: basic(caller), 'content-type': contentType },
      body: typeof toCheck === 'string' ? toCheck : JSON.stringify(toCheck),
    })
  /** What a resource server passes on of a request signed for its own API. */
  const received = (options: Omit<SignOptions, 'url' | 'consumer'> & { path: string; queryInHeader?: boolean }) => {
    const signed = signRequest({ consumer: alice.consumer, token: alice.token, method: 'GET', ...options, url: `${API}${options.path}` })
    return { method: signed.method, url: signed.url, authorization: signed.headers.authorization, ...(signed.body === undefined ? {} : { body: signed.body }) }
  }
  const aliceAsCaller = (kind: string, extra: object = {}) => ({
    token_kind: kind,
    app_id: alice.app.id,
    consumer_key: alice.app.consumerKey,
    app_name: alice.app.name,
    access_level: alice.app.accessLevel,
    ...extra,
  })

  test('a request signed in the header, with its query signed, is the person and the app, and nothing secret', async () => {
    const answer = await check(received({ path: '/2/tweets/search?query=cats&max_results=10' }))
    assert.equal(answer.status, 200, answer.text)
    assert.deepEqual(answer.json, { valid: true, caller: aliceAsCaller('oauth1_user', { user_id: alice.user.id, screen_name: alice.user.screenName }) })
    for (const secret of [alice.consumer.secret, alice.token.secret, alice.token.key]) assert.ok(!answer.text.includes(secret), 'no credential comes back')
  })

  test('a POST whose form body is signed is checked with its body; the body changed is refused', async () => {
    const toCheck = received({ path: '/1.1/statuses/update.json', method: 'POST', body: { status: 'hello world', trim_user: 'true' } })
    assert.equal((await check(toCheck)).json.valid, true)
    const tampered = received({ path: '/1.1/statuses/update.json', method: 'POST', body: { status: 'hello world' } })
    const answer = await check({ ...tampered, body: 'status=goodbye' })
    assert.deepEqual(answer.json, {
      valid: false,
      refusal: { status: 401, headers: { 'www-authenticate': 'OAuth realm="Latchkey"' }, body: { errors: [{ code: 32, message: 'Could not authenticate you.' }] } },
      reason: 'signed request refused: signature',
    })
  })

  test('in production a refusal carries no reason, only what X answers', async () => {
    const production = await injectedTestServer({ http: { dev: false, trustProxy: ['127.0.0.1'] } })
    try {
      const checker = await makeApp(production.domain, { isResourceServer: true })
      const answer = await production.send({
        method: 'POST',
        url: `${production.url}/latchkey/check-request`,
        headers: { authorization: basic(checker), 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
        body: JSON.stringify({ method: 'GET', url: `${API}/x`, authorization: 'OAuth oauth_consumer_key="unknown"' }),
      })
      assert.equal(answer.status, 200, answer.text)
      assert.deepEqual(Object.keys(answer.json).sort(), ['refusal', 'valid'])
    } finally {
      await production.close()
    }
  })

  test('the oauth_ parameters in the query, not the header, are checked as well', async () => {
    const signed = signRequest({ consumer: alice.consumer, token: alice.token, method: 'GET', url: `${API}/1.1/users/show.json?screen_name=x` })
    const oauthQuery = new URLSearchParams(Object.entries(signed.oauthParams).filter(([name]) => name.startsWith('oauth_'))).toString()
    const answer = await check({ method: 'GET', url: `${API}/1.1/users/show.json?screen_name=x&${oauthQuery}` })
    assert.equal(answer.json.valid, true, answer.text)
    assert.equal(answer.json.caller.user_id, alice.user.id)
  })

  test('the same signed request checked twice: the second is a replay, refused with 401 code 32', async () => {
    const toCheck = received({ path: '/1.1/account/settings.json', nonce: `replay-${Date.now()}` })
    assert.equal((await check(toCheck)).json.valid, true)
    const replay = await check(toCheck)
    assert.equal(replay.json.valid, false)
    assert.deepEqual(replay.json.refusal.body, { errors: [{ code: 32, message: 'Could not authenticate you.' }] })
  })

  test('a signature for another URL, another method or another secret is refused', async () => {
    const signed = received({ path: '/1.1/a.json' })
    for (const wrong of [{ ...signed, url: `${API}/1.1/b.json` }, { ...signed, method: 'DELETE' }, { ...signed, url: signed.url.replace('https:', 'http:') }]) {
      assert.equal((await check(wrong)).json.refusal?.status, 401, JSON.stringify(wrong))
    }
    const forged = signRequest({ consumer: { ...alice.consumer, secret: 'not-the-secret' }, token: alice.token, method: 'GET', url: `${API}/1.1/a.json` })
    assert.equal((await check({ method: 'GET', url: forged.url, authorization: forged.headers.authorization })).json.refusal?.status, 401)
  })

  test('app-only bearer and OAuth 2.0 user tokens: their kind, and the scopes of the user token', async () => {
    const bearer = await check({ method: 'GET', url: `${API}/2/tweets`, authorization: `Bearer ${alice.bearer}` })
    assert.deepEqual(bearer.json, { valid: true, caller: aliceAsCaller('bearer') })
    const user = await check({ method: 'GET', url: `${API}/2/tweets`, authorization: `Bearer ${alice.userAccessToken}` })
    assert.deepEqual(user.json, {
      valid: true,
      caller: aliceAsCaller('oauth2_user', { access_level: 'read', user_id: alice.user.id, screen_name: alice.user.screenName, scopes: ['users.read'] }),
    })
  })

  test('an ended credential, an unknown one and none at all are refused as X refuses them', async () => {
    const bob = await issueEveryCredential(server.domain)
    await server.send({ method: 'POST', url: `${server.url}/oauth2/invalidate_token`, headers: { authorization: basic(bob.app), 'content-type': 'application/x-www-form-urlencoded' }, body: `access_token=${encodeURIComponent(bob.bearer)}` })
    const invalidated = await check({ method: 'GET', url: `${API}/x`, authorization: `Bearer ${bob.bearer}` })
    assert.equal(invalidated.json.refusal.status, 401)
    assert.equal(invalidated.json.refusal.body.errors[0].code, 89)
    const unknown = await check({ method: 'GET', url: `${API}/x`, authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAnot-a-token' })
    assert.equal(unknown.json.refusal.status, 401)
    const none = await check({ method: 'GET', url: `${API}/x` })
    assert.equal(none.json.valid, false)
    assert.ok(none.json.refusal.status >= 400 && none.json.refusal.status < 500)
  })

  test('charge: true counts the caller against /latchkey/resource-api and gives the x-rate-limit-* values; past it, 429 code 88', async () => {
    const carol = await issueEveryCredential(server.domain)
    const charged = () => check({ method: 'GET', url: `${API}/2/tweets`, authorization: `Bearer ${carol.userAccessToken}`, charge: true })
    const remaining: string[] = []
    for (let i = 0; i < 3; i++) {
      const answer = await charged()
      assert.equal(answer.json.valid, true)
      remaining.push(answer.json.rate_limit_headers['x-rate-limit-remaining'])
      assert.equal(answer.json.rate_limit_headers['x-rate-limit-limit'], '3')
    }
    assert.deepEqual(remaining, ['2', '1', '0'])
    const refused = await charged()
    assert.equal(refused.json.refusal.status, 429)
    assert.equal(refused.json.refusal.body.errors[0].code, 88)
    assert.equal(refused.json.refusal.headers['x-rate-limit-remaining'], '0')
    const uncharged = await check({ method: 'GET', url: `${API}/2/tweets`, authorization: `Bearer ${carol.userAccessToken}` })
    assert.equal(uncharged.json.valid, true, 'a check that does not ask to charge is not refused by the limit')
    assert.equal(uncharged.json.rate_limit_headers, undefined)
  })

  test('only a registered resource server with its right secret may ask: 403 code 99 otherwise, and the nonce is not spent', async () => {
    const toCheck = received({ path: '/1.1/once.json' })
    for (const caller of [alice.app, { ...resourceServer, consumerSecret: 'wrong' }]) {
      const answer = await check(toCheck, caller)
      assert.equal(answer.status, 403)
      assert.equal(answer.json.errors[0].code, 99)
    }
    assert.equal((await check(toCheck)).json.valid, true, 'the refused checks looked at nothing')
  })

  test('a check that is not a request gets 400 code 1003 naming what is wrong, and never a 5xx', async () => {
    const cases: Array<[unknown, string?]> = [
      ['not json'],
      [{ method: 'GET' }],
      [{ method: 'GET', url: 'not a url' }],
      [{ method: 'GET', url: 'ftp://api.example.org/x' }],
      [{ method: 'G E T', url: `${API}/x` }],
      [{ method: 'GET', url: `${API}/x`, unknown_field: 1 }],
      [{ method: 'GET', url: `${API}/x` }, 'text/plain'],
      [[1, 2]],
      [null],
    ]
    for (const [body, type] of cases) {
      const answer = await check(body === 'not json' ? body : JSON.stringify(body), resourceServer, type)
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`)
      assert.equal(answer.json.errors[0].code, 1003)
    }
    const missingUrl = await check({ method: 'GET' })
    assert.match(missingUrl.json.errors[0].message, /url/)
  })
})
