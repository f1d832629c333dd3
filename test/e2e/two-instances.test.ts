import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createDomainDeps } from '../../src/composition/root.ts'
import type { DomainDeps } from '../../src/domain/deps.ts'
import { createHash } from 'node:crypto'
import { checkAuthorizationRequest } from '../../src/domain/oauth2-user/authorization-request.ts'
import { setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { approveAuthorizationRequest } from '../../src/domain/oauth2-user/consent.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { updateUser } from '../../src/domain/admin/people.ts'
import { openStorage } from '../../src/storage/open-stores.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import type { Storage } from '../../src/storage/types.ts'
import {
  SHARED_BACKENDS_SKIP,
  TEST_REDIS_URL,
  createTestRedisPrefix,
  createTestSchema,
  type TestRedisPrefix,
  type TestSchema,
} from '../helpers/backends.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { csrfOf } from '../helpers/browser.ts'
import { errorCode, send, signRequest, type HttpAnswer, type SignOptions } from '../helpers/oauth1-client.ts'
import { startServe, type ServeProcess } from '../helpers/serve-process.ts'
import { runCli } from '../helpers/cli.ts'
import { countRows, testDomainSettings } from '../helpers/test-app.ts'
import { testKeyring } from '../helpers/keys.ts'
import { usingRealPasswordHashing } from '../helpers/cheap-password-hashing.ts'

// The people made here sign in on the two serve processes, which hash at the real cost.
usingRealPasswordHashing()

/**
 * Two `latchkey serve` processes, on two ports, sharing one PostgreSQL schema and one Redis prefix,
 * behind what they take for a TLS proxy on 127.0.0.1. Clients sign for the public URL, as they
 * would behind a load balancer, so the same signed request is valid on either instance.
 */
const PUBLIC = 'https://api.latchkey.test'
const FORWARDED = { 'x-forwarded-proto': 'https' }

describe('two instances sharing PostgreSQL and Redis', { skip: SHARED_BACKENDS_SKIP, timeout: 180_000 }, () => {
  let schema: TestSchema
  let keys: TestRedisPrefix
  let storage: Storage
  let domain: DomainDeps
  let instances: ServeProcess[] = []
  let app: AppRecord

  before(async () => {
    schema = await createTestSchema()
    keys = createTestRedisPrefix()
    // A third process of the deployment (as the CLI would be): registers the app, reads the tables.
    storage = await openStorage({ keyring: testKeyring(), databaseUrl: schema.url, redisUrl: TEST_REDIS_URL, redisKeyPrefix: keys.prefix })
    domain = createDomainDeps(storage, testDomainSettings())
    app = await makeApp(domain)
    const args = [
      ...['--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1', '--public-url', PUBLIC],
      ...['--database', schema.url, '--redis', TEST_REDIS_URL!, '--redis-key-prefix', keys.prefix],
      ...['--cookie-secret', 'two-instances-cookie-secret-0123456789', '--log-level', 'warn'],
      ...['--rate-limits', JSON.stringify({ '/account/verify_credentials': 10 })],
    ]
    instances = await Promise.all([startServe(args), startServe(args)])
  })

  after(async () => {
    const codes = await Promise.all(instances.map((instance) => instance.stop()))
    await storage?.runtime.close()
    await schema?.drop()
    await keys?.clean()
    assert.deepEqual(codes, instances.map(() => 0), 'both instances drain and exit 0 on SIGTERM')
  })

  /** Signs for the public URL of `path`; `sendTo` delivers that very request to one instance. */
  function signed(path: string, options: Omit<SignOptions, 'url'>) {
    const request = signRequest({ ...options, url: `${PUBLIC}${path}` })
    return (instance: ServeProcess): Promise<HttpAnswer> =>
      send({ ...request, url: `${instance.url}${path}`, headers: { ...request.headers, ...FORWARDED } })
  }

  const consumer = () => ({ key: app.consumerKey, secret: app.consumerSecret })
  const spread = <T>(count: number, call: (instance: ServeProcess) => Promise<T>) =>
    Promise.all(Array.from({ length: count }, (_, i) => call(instances[i % instances.length]!)))

  test('the instances are two processes on two ports', () => {
    assert.notEqual(instances[0]!.url, instances[1]!.url)
    assert.notEqual(instances[0]!.child.pid, instances[1]!.child.pid)
  })

  test('a nonce used on one instance is refused on the other (401 code 32)', async () => {
    const [a, b] = instances as [ServeProcess, ServeProcess]
    const requestToken = signed('/oauth/request_token', { consumer: consumer(), oauth: { oauth_callback: 'oob' } })
    const first = await requestToken(a)
    assert.equal(first.status, 200, first.text)
    const replay = await requestToken(b)
    assert.equal(replay.status, 401, replay.text)
    assert.equal(errorCode(replay), 32)
    // Not a signature problem: a fresh request signed the same way is accepted by the other one.
    const fresh = await signed('/oauth/request_token', { consumer: consumer(), oauth: { oauth_callback: 'oob' } })(b)
    assert.equal(fresh.status, 200, fresh.text)
  })

  test('POST /latchkey/check-request: a request checked on one instance is a replay on the other; twenty checks of one request at once over both, exactly one valid', async () => {
    const [a, b] = instances as [ServeProcess, ServeProcess]
    const resourceServer = await makeApp(domain, { isResourceServer: true })
    const { token: issued } = await issueOwnerToken(domain, app.id)
    const received = () => {
      const request = signRequest({ consumer: consumer(), token: { key: issued.token, secret: issued.secret }, method: 'GET', url: 'https://api.example.org/2/tweets?ids=1' })
      return JSON.stringify({ method: request.method, url: request.url, authorization: request.headers.authorization })
    }
    const check = (instance: ServeProcess, body: string) =>
      send({
        method: 'POST',
        url: `${instance.url}/latchkey/check-request`,
        headers: { ...FORWARDED, authorization: `Basic ${Buffer.from(`${resourceServer.consumerKey}:${resourceServer.consumerSecret}`).toString('base64')}`, 'content-type': 'application/json' },
        body,
      })
    const once = received()
    const first = await check(a, once)
    assert.equal(first.json?.valid, true, first.text)
    assert.equal(first.json.caller.user_id, app.ownerId)
    const replay = await check(b, once)
    assert.equal(replay.json?.valid, false, replay.text)
    assert.equal(replay.json.refusal.body.errors[0].code, 32)
    const burst = received()
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => check(instances[i % 2]!, burst)))
    assert.deepEqual(countBy(answers.map((answer) => String(answer.json?.valid))), { true: 1, false: 19 })
  })

  test('a token invalidated on one instance gets 401 code 89 on the other at the very next request', async () => {
    const [a, b] = instances as [ServeProcess, ServeProcess]
    const { token: issued } = await issueOwnerToken(domain, app.id)
    const token = { key: issued.token, secret: issued.secret }
    const verify = () => signed('/1.1/account/verify_credentials.json', { consumer: consumer(), token, method: 'GET' })(b)
    assert.equal((await verify()).status, 200, 'the token works on the other instance first')
    const invalidated = await signed('/1.1/oauth/invalidate_token', { consumer: consumer(), token })(a)
    assert.equal(invalidated.status, 200, invalidated.text)
    const next = await verify()
    assert.equal(next.status, 401, next.text)
    assert.equal(errorCode(next), 89)
  })

  test('a hundred concurrent access_token exchanges of one verifier over both give exactly one token', async () => {
    const [a] = instances as [ServeProcess]
    const issued = await signed('/oauth/request_token', { consumer: consumer(), oauth: { oauth_callback: 'oob' } })(a)
    assert.equal(issued.status, 200, issued.text)
    const requestToken = { key: issued.form.oauth_token!, secret: issued.form.oauth_token_secret! }
    const owner = await storage.stores.users.findById(app.ownerId)
    const verifier = `verifier${Date.now()}`
    assert.ok(await storage.stores.requestTokens.authorize(requestToken.key, owner!.id, verifier, Date.now()))
    const exchanges = Array.from({ length: 100 }, () =>
      signed('/oauth/access_token', { consumer: consumer(), token: requestToken, oauth: { oauth_verifier: verifier } }),
    )
    const answers = await Promise.all(exchanges.map((exchange, i) => exchange(instances[i % 2]!)))
    const ok = answers.filter((answer) => answer.status === 200)
    assert.equal(ok.length, 1, `statuses: ${JSON.stringify(countBy(answers.map((x) => x.status)))}`)
    assert.ok(ok[0]!.form.oauth_token, 'the winner got an access token')
    for (const answer of answers.filter((x) => x.status !== 200)) {
      assert.equal(answer.status, 401, answer.text)
      assert.equal(errorCode(answer), 89, answer.text)
    }
  })

  test('OAuth 2.0 user context: of 50 redemptions of one code over both, exactly one gets tokens; of 50 rotations of its refresh token, exactly one', async () => {
    const redirectUri = 'https://client.example/cb'
    const client = await makeApp(domain, { callbackUrls: [redirectUri] })
    const made = await setOAuth2Client(domain, { appId: client.id, setting: 'confidential' })
    const authorization = `Basic ${Buffer.from(`${made.client!.clientId}:${made.newSecret}`).toString('base64')}`
    const verifier = 'v'.repeat(43)
    const newCode = async () => {
      const check = await checkAuthorizationRequest(domain, {
        response_type: 'code',
        client_id: made.client!.clientId,
        redirect_uri: redirectUri,
        scope: 'users.read offline.access',
        state: 'state',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      })
      if (check.outcome !== 'valid') assert.fail(`the authorization request was refused: ${check.redirectTo}`)
      const { redirectTo } = await approveAuthorizationRequest(domain, check.request, { userId: client.ownerId, address: null })
      return new URL(redirectTo).searchParams.get('code')!
    }
    const token = (fields: Record<string, string>) => (instance: ServeProcess) =>
      send({
        method: 'POST',
        url: `${instance.url}/2/oauth2/token`,
        headers: { ...FORWARDED, authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      })
    const race = async (fields: Record<string, string>) => {
      const answers = await spread(50, token(fields))
      const statuses = JSON.stringify(countBy(answers.map((x) => x.status)))
      const won = answers.filter((answer) => answer.status === 200)
      assert.equal(won.length, 1, `statuses: ${statuses}`)
      for (const lost of answers.filter((answer) => answer.status !== 200)) assert.equal(lost.status, 400, lost.text)
      return JSON.parse(won[0]!.text) as { access_token: string; refresh_token: string }
    }
    const exchange = (code: string) => ({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier })
    await race(exchange(await newCode()))
    // The losers' reuse may end what the winner got (RFC 6749 §4.1.2): the refresh race starts from a code used once.
    const issued = await token(exchange(await newCode()))(instances[0]!)
    assert.equal(issued.status, 200, issued.text)
    await race({ grant_type: 'refresh_token', refresh_token: String(issued.json.refresh_token) })
  })

  test('a hundred wrong verifiers and the right one over both: at most 3 answered 32, the rest 89; the right one only before the third', async () => {
    const mine = await makeApp(domain)
    const mineConsumer = { key: mine.consumerKey, secret: mine.consumerSecret }
    const issued = await signed('/oauth/request_token', { consumer: mineConsumer, oauth: { oauth_callback: 'oob' } })(instances[0]!)
    assert.equal(issued.status, 200, issued.text)
    const requestToken = { key: issued.form.oauth_token!, secret: issued.form.oauth_token_secret! }
    assert.ok(await storage.stores.requestTokens.authorize(requestToken.key, mine.ownerId, '7654321', Date.now()))
    const exchange = (verifier: string) => signed('/oauth/access_token', { consumer: mineConsumer, token: requestToken, oauth: { oauth_verifier: verifier } })
    const attempts = [exchange('7654321'), ...Array.from({ length: 100 }, (_, i) => exchange(String(1_000_000 + i)))]
    const [right, ...wrong] = await Promise.all(attempts.map((attempt, i) => attempt(instances[i % 2]!)))
    const counted = wrong.filter((answer) => errorCode(answer) === 32).length
    assert.ok(counted <= 3, `${counted} wrong verifiers were answered 32`)
    assert.ok(wrong.every((answer) => answer.status === 401 && [32, 89].includes(errorCode(answer)!)), JSON.stringify(countBy(wrong.map((x) => x.status))))
    if (right!.status === 200) assert.ok(counted <= 2, 'the right one won, so it was checked before the third failure')
    else assert.deepEqual([right!.status, errorCode(right!), counted], [401, 89, 3])
  })

  test('one limit counts the calls sent to both; another app never spends it; 429 code 88 exactly past it', async () => {
    const mine = await makeApp(domain)
    const theirs = await makeApp(domain)
    const tokenOf = async (target: AppRecord) => {
      const { token } = await issueOwnerToken(domain, target.id)
      return { consumer: { key: target.consumerKey, secret: target.consumerSecret }, token: { key: token.token, secret: token.secret } }
    }
    const [me, them] = [await tokenOf(mine), await tokenOf(theirs)]
    const verify = (credentials: typeof me, instance: ServeProcess) =>
      signed('/1.1/account/verify_credentials.json', { ...credentials, method: 'GET' })(instance)
    const remaining: number[] = []
    for (let i = 0; i < 6; i++) {
      const answer = await verify(me, instances[i % 2]!)
      assert.equal(answer.status, 200, answer.text)
      remaining.push(Number(answer.headers.get('x-rate-limit-remaining')))
      await verify(them, instances[(i + 1) % 2]!)
    }
    assert.deepEqual(remaining, [9, 8, 7, 6, 5, 4], 'each call, on either instance, spends exactly one of my calls')
    const status = await signed('/1.1/application/rate_limit_status.json?resources=account', { ...me, method: 'GET' })(instances[1]!)
    assert.equal(status.json.resources.account['/account/verify_credentials'].remaining, 4)
    for (let i = 0; i < 4; i++) assert.equal((await verify(me, instances[i % 2]!)).status, 200)
    const over = await verify(me, instances[0]!)
    assert.equal(over.status, 429)
    assert.equal(errorCode(over), 88)
    assert.equal((await verify(me, instances[1]!)).status, 429, 'the other instance agrees')
  })

  test('fifty concurrent first /oauth2/token calls over both give one token', async () => {
    const other = await makeApp(domain)
    const authorization = `Basic ${Buffer.from(`${other.consumerKey}:${other.consumerSecret}`).toString('base64')}`
    const answers = await spread(50, (instance) =>
      send({
        method: 'POST',
        url: `${instance.url}/oauth2/token`,
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', ...FORWARDED },
        body: 'grant_type=client_credentials',
      }),
    )
    assert.deepEqual(countBy(answers.map((x) => x.status)), { 200: 50 }, answers.find((x) => x.status !== 200)?.text)
    assert.equal(new Set(answers.map((x) => x.json.access_token)).size, 1)
    assert.equal(await countRows(schema.url, 'bearer_tokens'), 1)
  })

  test("a signature failure refused by instance A is on the developer console of instance B", async () => {
    const { user, password } = await makeUser(domain)
    const owned = await makeApp(domain, { owner: user, name: 'Seen everywhere' })
    const [a, b] = instances as [ServeProcess, ServeProcess]
    const browser = new FetchBrowser(b.url, FORWARDED)
    const signInPage = await browser.get('/console')
    const signedIn = await browser.post('/console/sign-in', { csrf_token: csrfOf(signInPage.text), username: user.screenName, password, next: '/console' })
    assert.equal(signedIn.status, 302, signedIn.text)

    const refused = await signed('/oauth/request_token', { consumer: { key: owned.consumerKey, secret: 'not-the-secret' }, oauth: { oauth_callback: 'oob' } })(a)
    assert.equal(refused.status, 401)
    assert.equal(errorCode(refused), 32)

    // Written off the 401's path: visible on B within moments, never in the client's answer.
    let page = ''
    for (let tries = 0; tries < 50 && !page.includes('class="failure"'); tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100))
      const answer = await browser.get(`/console/apps/${owned.id}/failures`)
      assert.equal(answer.status, 200)
      page = answer.text
    }
    assert.match(page, /<li class="failure">[\s\S]*\(bad_signature\)/)
    assert.match(page, /POST&amp;https%3A%2F%2Fapi\.latchkey\.test%2Foauth%2Frequest_token&amp;/, 'the base string A computed')
    assert.ok(!page.includes(owned.consumerSecret))
  })

  test("sign-out everywhere, a password change and disabling each end a person's browser sessions on both instances at once", async () => {
    const [a, b] = instances as [ServeProcess, ServeProcess]
    const { user, password } = await makeUser(domain)
    const signIn = async (secret: string) => {
      const browser = new FetchBrowser(a.url, FORWARDED)
      const page = await browser.get('/console')
      const answer = await browser.post('/console/sign-in', { csrf_token: csrfOf(page.text), username: user.screenName, password: secret, next: '/console' })
      assert.equal(answer.status, 302, answer.text)
      return browser
    }
    const isSignedIn = async (browser: FetchBrowser) => (await browser.get('/console')).text.includes('<h1>Your apps</h1>')
    const onBoth = async (browser: FetchBrowser) => [await isSignedIn(browser.at(a.url)), await isSignedIn(browser.at(b.url))]

    // 1. `latchkey user sign-out-everywhere`, run as the CLI beside the two servers.
    const first = await signIn(password)
    assert.deepEqual(await onBoth(first), [true, true], 'one session, valid on either instance')
    const cli = await runCli(['user', 'sign-out-everywhere', user.screenName, '--json'], { LATCHKEY_DATABASE_URL: schema.url, LATCHKEY_REDIS_URL: TEST_REDIS_URL!, LATCHKEY_REDIS_KEY_PREFIX: keys.prefix })
    assert.equal(cli.code, 0, cli.stderr)
    assert.deepEqual(await onBoth(first.copy()), [false, false], 'ended on both')

    // 2. A password change on instance A ends the other sessions on B too; the changing browser keeps a new one.
    const other = await signIn(password)
    const changer = await signIn(password)
    const form = await changer.get('/settings/password')
    const newPassword = 'a brand new password 2'
    const changed = await changer.post('/settings/password', { csrf_token: csrfOf(form.text), current_password: password, new_password: newPassword })
    assert.equal(changed.status, 200, changed.text)
    assert.deepEqual(await onBoth(other.copy()), [false, false], 'the other session ended on both')
    assert.deepEqual(await onBoth(changer), [true, true], 'the browser that changed it has a new session, valid on both')

    // 3. Disabling the person (the admin API's use case, from a third process) ends every session on both.
    const kept = await signIn(newPassword)
    await updateUser(domain, user.id, { disabled: true })
    assert.deepEqual(await onBoth(kept.copy()), [false, false])
    assert.deepEqual(await onBoth(changer.copy()), [false, false])
    await updateUser(domain, user.id, { disabled: false })
    assert.deepEqual(await onBoth(kept.copy()), [false, false], 'enabling again does not bring an ended session back')
  })
})

/** A browser over real HTTP (fetch): keeps the cookies it is given, sends the proxy's headers, never follows redirects. */
class FetchBrowser {
  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string>,
    private readonly cookies = new Map<string, string>(),
  ) {}

  /** The same browser (its cookies now, shared from here on) talking to another instance. */
  at(baseUrl: string): FetchBrowser {
    return new FetchBrowser(baseUrl, this.headers, this.cookies)
  }

  /** A copy of its cookies as they are now, to be sent again later (a stolen or saved cookie). */
  copy(): FetchBrowser {
    return new FetchBrowser(this.baseUrl, this.headers, new Map(this.cookies))
  }

  private async call(path: string, init: RequestInit): Promise<{ status: number; text: string }> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(`${this.baseUrl}${path}`, { ...init, redirect: 'manual', headers: { ...this.headers, ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } })
    for (const set of response.headers.getSetCookie()) {
      const [pair = ''] = set.split(';')
      const at = pair.indexOf('=')
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1))
    }
    return { status: response.status, text: await response.text() }
  }

  get(path: string) {
    return this.call(path, { method: 'GET' })
  }

  post(path: string, fields: Record<string, string>) {
    return this.call(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() })
  }
}

function countBy(values: Array<string | number>): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1
  return counts
}
