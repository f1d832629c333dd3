import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { issueOrReuseAccessToken } from '../../src/domain/oauth1/issue-access-token.ts'
import { newUserTokenValue } from '../../src/domain/oauth2-user/token-values.ts'
import { issueEveryCredential, makeApp, makeUser } from '../helpers/fixtures.ts'
import { errorCode, send, signedFetch, signRequest, type HttpAnswer, type SignOptions } from '../helpers/oauth1-client.ts'
import { countRows, startTestServer, type TestServer } from '../helpers/test-app.ts'

const limits = (answer: { headers: Headers }) => ({
  limit: Number(answer.headers.get('x-rate-limit-limit')),
  remaining: Number(answer.headers.get('x-rate-limit-remaining')),
  reset: Number(answer.headers.get('x-rate-limit-reset')),
})

describe('rate limits', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({
      settings: { rateLimits: { '/account/verify_credentials': 3, '/oauth/request_token': 4, '/application/rate_limit_status': 50 } },
      http: { trustProxy: ['127.0.0.1'] },
    })
  })
  after(() => server.close())

  const ownerToken = async (app: AppRecord) => {
    const { token } = await issueOwnerToken(server.domain, app.id)
    return { consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret } }
  }
  const verify = (credentials: Pick<SignOptions, 'consumer' | 'token'>, from = '10.0.0.1') =>
    signedFetch({ ...credentials, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json`, extraHeaders: { 'x-forwarded-for': from } })

  test('the headers count down and 429 code 88 arrives exactly past the limit', async () => {
    const credentials = await ownerToken(await makeApp(server.domain))
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await verify(credentials))
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 429])
    assert.deepEqual(answers.map((a) => limits(a).remaining), [2, 1, 0, 0])
    assert.ok(answers.every((a) => limits(a).limit === 3))
    const now = Date.now() / 1000
    assert.ok(answers.every((a) => limits(a).reset > now && limits(a).reset <= now + 901))
    assert.deepEqual(answers[3]!.json, { errors: [{ code: 88, message: 'Rate limit exceeded' }] })
  })

  test('a request over the limit does nothing', async () => {
    const app = await makeApp(server.domain)
    const call = () => signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' }, extraHeaders: { 'x-forwarded-for': '10.0.0.2' } })
    for (let i = 0; i < 4; i++) assert.equal((await call()).status, 200)
    const before = await countRows(server.dbPath, 'request_tokens')
    const over = await call()
    assert.equal(over.status, 429)
    assert.equal(errorCode(over), 88)
    assert.equal(await countRows(server.dbPath, 'request_tokens'), before)
  })

  test("one person's or app's calls never spend another's budget", async () => {
    const app = await makeApp(server.domain)
    const other = await makeApp(server.domain)
    const mine = await ownerToken(app)
    const theirs = await ownerToken(other)
    assert.equal(limits(await verify(mine)).remaining, 2)
    for (let i = 0; i < 3; i++) await verify(theirs)
    assert.equal(limits(await verify(mine)).remaining, 1)
  })

  test('two people of one app each have a budget of their own', async () => {
    const app = await makeApp(server.domain)
    const personToken = async () => {
      const { user } = await makeUser(server.domain)
      const token = await issueOrReuseAccessToken(server.domain, { appId: app.id, userId: user.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
      return { consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret } }
    }
    const alice = await personToken()
    const bob = await personToken()
    for (let i = 0; i < 3; i++) assert.equal((await verify(alice)).status, 200)
    assert.equal(errorCode(await verify(alice)), 88)
    const bobsFirst = await verify(bob)
    assert.equal(bobsFirst.status, 200)
    assert.equal(limits(bobsFirst).remaining, 2)
  })

  test("a stranger holding the app's consumer key cannot use up its limit; failures count against the stranger's address", async () => {
    const app = await makeApp(server.domain)
    const credentials = await ownerToken(app)
    const forged = { consumer: { key: app.consumerKey, secret: 'guessed' }, token: credentials.token }
    const strangerAnswers = []
    for (let i = 0; i < 4; i++) strangerAnswers.push(await verify(forged, '10.9.9.9'))
    assert.deepEqual(strangerAnswers.map((a) => a.status), [401, 401, 401, 429])
    assert.deepEqual(strangerAnswers.slice(0, 3).map((a) => limits(a).remaining), [2, 1, 0])
    // The refusal is the address's: its own headers, and (in development) its reason.
    const refused = strangerAnswers[3]!
    assert.deepEqual([refused.headers.get('x-rate-limit-limit'), refused.headers.get('x-rate-limit-remaining')], ['3', '0'])
    assert.equal(refused.headers.get('x-latchkey-reason'), 'address limit of /account/verify_credentials')
    const legit = await verify(credentials, '10.0.0.3')
    assert.equal(legit.status, 200)
    assert.equal(limits(legit).remaining, 2, "the app's own budget is untouched")
  })

  test("a replay refused after the app's limit was charged shows the app's budget, not the address's", async () => {
    const credentials = await ownerToken(await makeApp(server.domain))
    const request = signRequest({ ...credentials, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json`, extraHeaders: { 'x-forwarded-for': '10.0.0.9' } })
    const first = await send(request)
    assert.deepEqual([first.status, limits(first).remaining], [200, 2])
    const replay = await send(request)
    assert.deepEqual([replay.status, errorCode(replay)], [401, 32])
    // The app's count as the replay was charged (before it was given back); the address's would be 2.
    assert.equal(limits(replay).remaining, 1)
  })

  test('failures sent all at once from one address pass the address limit by none: each reserves its count before any work', async () => {
    const app = await makeApp(server.domain)
    const credentials = await ownerToken(app)
    const forged = { consumer: { key: app.consumerKey, secret: 'guessed' }, token: credentials.token }
    const burst = await Promise.all(Array.from({ length: 200 }, () => verify(forged, '10.9.8.7')))
    const statuses = burst.map((answer) => answer.status)
    assert.equal(statuses.filter((status) => status === 401).length, 3, 'exactly the limit of failures is answered')
    assert.equal(statuses.filter((status) => status === 429).length, 197)
    assert.equal((await verify(credentials, '10.9.8.6')).status, 200, 'another address is untouched')
  })

  test('successful calls give their address reservation back: an address making only good calls is never braked', async () => {
    const credentials = await ownerToken(await makeApp(server.domain))
    const other = await ownerToken(await makeApp(server.domain))
    for (const who of [credentials, other, credentials, other]) assert.equal((await verify(who, '10.9.8.5')).status, 200)
  })

  test('an address cannot multiply its failure budget by writing itself another way or changing the low 64 bits of IPv6', async () => {
    const app = await makeApp(server.domain)
    const credentials = await ownerToken(app)
    const forged = { consumer: { key: app.consumerKey, secret: 'guessed' }, token: credentials.token }
    const mapped = []
    for (const from of ['10.9.7.1', '::ffff:10.9.7.1', '::ffff:a09:701', '10.9.7.1']) mapped.push((await verify(forged, from)).status)
    assert.deepEqual(mapped, [401, 401, 401, 429])
    const sixes = []
    for (const from of ['2001:db8:5:6::1', '2001:db8:5:6::2', '2001:db8:5:6:ffff::9', '2001:db8:5:6::abcd']) sixes.push((await verify(forged, from)).status)
    assert.deepEqual(sixes, [401, 401, 401, 429])
    assert.equal((await verify(forged, '2001:db8:5:7::1')).status, 401, 'the next /64 is another subscriber')
  })

  test("rate_limit_status has an address limit of its own: a stranger's failures from one address stop at its limit", async () => {
    const forged = { authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAnotatoken', 'x-forwarded-for': '10.9.9.10' }
    const answers = []
    for (let i = 0; i <= 50; i++) answers.push(await send({ method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json`, headers: forged }))
    assert.deepEqual([...new Set(answers.slice(0, 50).map((a) => a.status))], [401])
    assert.equal(answers[50]!.status, 429)
    assert.equal(answers[50]!.headers.get('x-latchkey-reason'), 'address limit of /application/rate_limit_status')
  })

  test('rate_limit_status reports the exact remaining counts of the caller', async () => {
    const credentials = await ownerToken(await makeApp(server.domain))
    await verify(credentials)
    await verify(credentials)
    const status = await signedFetch({ ...credentials, method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json?resources=account,%20application`, extraHeaders: { 'x-forwarded-for': '10.0.0.4' } })
    assert.equal(status.status, 200)
    assert.deepEqual(status.json.rate_limit_context, { access_token: credentials.token.key }, 'user context: the token, not the app')
    assert.deepEqual(Object.keys(status.json.resources).sort(), ['account', 'application'])
    assert.equal(status.json.resources.account['/account/verify_credentials'].remaining, 1)
    assert.equal(status.json.resources.account['/account/verify_credentials'].limit, 3)
    assert.equal(status.json.resources.application['/application/rate_limit_status'].remaining, 49)
    assert.equal(limits(status).remaining, 49)
  })
})

describe('rate-limit settings', () => {
  test('with a 2-second window the budget comes back when the window ends', async () => {
    const server = await startTestServer({ settings: { rateLimits: { '/account/verify_credentials': 2 }, rateLimitWindowSeconds: 2 } })
    try {
      const app = await makeApp(server.domain)
      const { token } = await issueOwnerToken(server.domain, app.id)
      const verify = () => signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret }, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
      assert.deepEqual([(await verify()).status, (await verify()).status, (await verify()).status], [200, 200, 429])
      await sleep(2100)
      const again = await verify()
      assert.equal(again.status, 200)
      assert.equal(limits(again).remaining, 1)
    } finally {
      await server.close()
    }
  })

  test('a request refused by a limit spends no nonce: the same request, resent after the window, is accepted once', async () => {
    const server = await startTestServer({ settings: { rateLimits: { '/account/verify_credentials': 2 }, rateLimitWindowSeconds: 2 } })
    try {
      const app = await makeApp(server.domain)
      const { token } = await issueOwnerToken(server.domain, app.id)
      const options = { consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret }, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` }
      assert.deepEqual([(await signedFetch(options)).status, (await signedFetch(options)).status], [200, 200])
      const held = signRequest(options)
      const refused = await send(held)
      assert.deepEqual([refused.status, errorCode(refused)], [429, 88])
      await sleep(2100)
      const resent = await send(held)
      assert.equal(resent.status, 200, resent.text)
      const replayed = await send(held)
      assert.deepEqual([replayed.status, errorCode(replayed)], [401, 32], 'accepted once: now its nonce is spent')
      const last = await signedFetch(options)
      assert.deepEqual([last.status, limits(last).remaining], [200, 0], 'the replay gave its count back: this is the second call of the window')
    } finally {
      await server.close()
    }
  })

  test('--rate-limit-multiplier multiplies every limit, the /oauth2/token pace included', async () => {
    const server = await startTestServer({ settings: { rateLimitMultiplier: 3 } })
    try {
      const app = await makeApp(server.domain)
      const answer = await send({
        method: 'POST',
        url: `${server.url}/oauth2/token`,
        headers: { authorization: `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      })
      assert.equal(limits(answer).limit, 180)
      const { token } = await issueOwnerToken(server.domain, app.id)
      const verify = await signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret }, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
      assert.equal(limits(verify).limit, 225)
    } finally {
      await server.close()
    }
  })
})

describe('every API route has an address limit of its own', () => {
  let server: TestServer
  // Each resource's limit at 2 (the token endpoint's is its pace setting).
  const resources = ['/oauth/request_token', '/oauth/access_token', '/oauth/invalidate_token', '/oauth2/invalidate_token', '/oauth2/introspect', '/2/oauth2/token', '/2/oauth2/revoke', '/2/users/me', '/account/verify_credentials', '/application/rate_limit_status', '/latchkey/forward-auth']
  before(async () => {
    server = await startTestServer({
      settings: { rateLimits: Object.fromEntries(resources.map((resource) => [resource, 2])), bearerTokenCallsPerWindow: 2 },
      http: { trustProxy: ['127.0.0.1'] },
    })
  })
  after(() => server.close())

  const form = { 'content-type': 'application/x-www-form-urlencoded' }
  const wrongBasic = { authorization: `Basic ${Buffer.from('nobody:nothing').toString('base64')}`, ...form }
  const wrongBearer = { authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAnotatoken' }
  /** A request of each route that fails authentication, and the resource whose budget it spends. */
  const ROUTES: Array<{ resource: string; method: string; path: string; headers?: Record<string, string>; body?: string }> = [
    { resource: '/oauth/request_token', method: 'POST', path: '/oauth/request_token' },
    { resource: '/oauth/access_token', method: 'POST', path: '/oauth/access_token' },
    { resource: '/oauth/invalidate_token', method: 'POST', path: '/1.1/oauth/invalidate_token' },
    { resource: '/oauth2/token', method: 'POST', path: '/oauth2/token', headers: wrongBasic, body: 'grant_type=client_credentials' },
    { resource: '/oauth2/invalidate_token', method: 'POST', path: '/oauth2/invalidate_token', headers: wrongBasic, body: 'access_token=x' },
    { resource: '/oauth2/introspect', method: 'POST', path: '/oauth2/introspect', headers: wrongBasic, body: 'token=x' },
    { resource: '/2/oauth2/token', method: 'POST', path: '/2/oauth2/token', headers: wrongBasic, body: 'grant_type=refresh_token&refresh_token=x' },
    { resource: '/2/oauth2/revoke', method: 'POST', path: '/2/oauth2/revoke', headers: wrongBasic, body: 'token=x' },
    { resource: '/2/users/me', method: 'GET', path: '/2/users/me', headers: wrongBearer },
    { resource: '/account/verify_credentials', method: 'GET', path: '/1.1/account/verify_credentials.json' },
    { resource: '/application/rate_limit_status', method: 'GET', path: '/1.1/application/rate_limit_status.json', headers: wrongBearer },
    { resource: '/latchkey/forward-auth', method: 'GET', path: '/latchkey/forward-auth', headers: { ...wrongBearer, 'x-original-uri': '/api/things' } },
  ]

  for (const [i, route] of ROUTES.entries()) {
    test(`${route.method} ${route.path}: a stranger's third failure from one address is 429, for ${route.resource}`, async () => {
      const call = () => send({ method: route.method, url: `${server.url}${route.path}`, headers: { ...route.headers, 'x-forwarded-for': `10.7.0.${i + 1}` }, ...(route.body ? { body: route.body } : {}) })
      const answers = [await call(), await call(), await call()]
      assert.ok(answers.slice(0, 2).every((a) => a.status >= 400 && a.status < 429), answers.map((a) => a.status).join(' '))
      assert.equal(answers[2]!.status, 429)
      assert.equal(answers[2]!.headers.get('x-latchkey-reason'), `address limit of ${route.resource}`)
    })
  }

  test('an address past its budget is refused a valid request too, on every route: 429, where the same request from another address succeeds', async () => {
    const every = await issueEveryCredential(server.domain)
    const clientId = (await server.domain.stores.oauth2Clients.findByAppId(every.app.id))!.clientId
    const nowMs = Date.now()
    const grant = { id: server.domain.newId(), appId: every.app.id, userId: every.user.id, scopes: ['users.read', 'offline.access'], createdAtMs: nowMs, revokedAtMs: null }
    const refreshToken = newUserTokenValue()
    const refresh = { kind: 'refresh' as const, grantId: grant.id, createdAtMs: nowMs, expiresAtMs: nowMs + 3_600_000, spentAtMs: null }
    await server.domain.stores.oauth2Grants.create(grant, [{ token: refreshToken, record: refresh }], `code-${grant.id}`)
    const basic = { authorization: `Basic ${Buffer.from(`${every.app.consumerKey}:${every.app.consumerSecret}`).toString('base64')}`, ...form }
    const signed = (from: string, method: string, path: string, token?: SignOptions['token'], oauth?: Record<string, string>) =>
      signedFetch({ consumer: every.consumer, ...(token ? { token } : {}), method, url: `${server.url}${path}`, ...(oauth ? { oauth } : {}), extraHeaders: { 'x-forwarded-for': from } })
    const plain = (from: string, method: string, path: string, headers: Record<string, string>, body?: string) =>
      send({ method, url: `${server.url}${path}`, headers: { ...headers, 'x-forwarded-for': from }, ...(body ? { body } : {}) })
    const bearer = { authorization: `Bearer ${every.bearer}` }
    const checker = await makeApp(server.domain, { isResourceServer: true })
    const checkerBasic = { authorization: `Basic ${Buffer.from(`${checker.consumerKey}:${checker.consumerSecret}`).toString('base64')}`, ...form }
    // A valid request of each route; those that end a credential last, after the routes that use it.
    const valid: Array<[string, (from: string) => Promise<HttpAnswer>]> = [
      ['/oauth/request_token', (from) => signed(from, 'POST', '/oauth/request_token', undefined, { oauth_callback: 'oob' })],
      ['/account/verify_credentials', (from) => signed(from, 'GET', '/1.1/account/verify_credentials.json', every.token)],
      ['/oauth2/token', (from) => plain(from, 'POST', '/oauth2/token', basic, 'grant_type=client_credentials')],
      ['/oauth2/introspect', (from) => plain(from, 'POST', '/oauth2/introspect', checkerBasic, `token=${every.bearer}`)],
      ['/application/rate_limit_status', (from) => plain(from, 'GET', '/1.1/application/rate_limit_status.json', bearer)],
      ['/latchkey/forward-auth', (from) => plain(from, 'GET', '/latchkey/forward-auth', { ...bearer, 'x-original-uri': '/api/things' })],
      ['/2/users/me', (from) => plain(from, 'GET', '/2/users/me', { authorization: `Bearer ${every.userAccessToken}` })],
      ['/2/oauth2/token', (from) => plain(from, 'POST', '/2/oauth2/token', form, `grant_type=refresh_token&refresh_token=${refreshToken}&client_id=${clientId}`)],
      ['/2/oauth2/revoke', (from) => plain(from, 'POST', '/2/oauth2/revoke', form, `token=${every.userAccessToken}&client_id=${clientId}`)],
      ['/oauth2/invalidate_token', (from) => plain(from, 'POST', '/oauth2/invalidate_token', basic, `access_token=${every.bearer}`)],
      ['/oauth/invalidate_token', (from) => signed(from, 'POST', '/1.1/oauth/invalidate_token', every.token)],
    ]
    for (const [i, [resource, call]] of valid.entries()) {
      const failing = ROUTES.find((route) => route.resource === resource)!
      const blocked = `10.8.${i}.1`
      for (let n = 0; n < 2; n++) await send({ method: failing.method, url: `${server.url}${failing.path}`, headers: { ...failing.headers, 'x-forwarded-for': blocked }, ...(failing.body ? { body: failing.body } : {}) })
      const refused = await call(blocked)
      assert.equal(refused.status, 429, `${resource} from the blocked address: ${refused.text}`)
      assert.equal(refused.headers.get('x-latchkey-reason'), `address limit of ${resource}`)
      const answered = await call(`10.8.${i}.2`)
      assert.ok(answered.status >= 200 && answered.status < 300, `${resource} from another address: ${answered.status} ${answered.text}`)
    }
  })

  test('the two paths of invalidate_token share one budget', async () => {
    const call = (path: string) => send({ method: 'POST', url: `${server.url}${path}`, headers: { 'x-forwarded-for': '10.7.1.1' } })
    assert.deepEqual([(await call('/1.1/oauth/invalidate_token')).status < 429, (await call('/1.1/oauth/invalidate_token')).status < 429], [true, true])
    assert.equal((await call('/oauth/invalidate_token')).status, 429)
  })
})
