import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { identifyCaller } from '../../src/domain/identify-caller.ts'
import { regenerateClientSecret, setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { updateApp } from '../../src/domain/registry/apps.ts'
import { handOutBearerToken } from '../../src/domain/oauth2/bearer-token.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { basic, challengeOf, newVerifier, REDIRECT } from '../helpers/oauth2-user.ts'
import { signRequest } from '../helpers/oauth1-client.ts'
import { Browser, csrfOf } from '../helpers/browser.ts'
import { startTestServer, testClock, type TestServer } from '../helpers/test-app.ts'
import { counterValues, deltas, parseScrape, seriesKey } from '../helpers/prometheus-text.ts'

/**
 * OAuth 2.0 user context end to end over a real socket (twitter-behaviour §9): the consent page,
 * the token endpoint's two grants, revocation and /2/users/me, each refusal beside its accepted twin.
 */

const FORM = 'application/x-www-form-urlencoded'

interface Client {
  app: AppRecord
  owner: UserRecord
  clientId: string
  clientSecret: string | undefined
}

describe('OAuth 2.0 user context', () => {
  const clock = testClock()
  let server: TestServer
  let person: { user: UserRecord; password: string }
  before(async () => {
    server = await startTestServer({ clock, metrics: true })
    person = await makeUser(server.domain)
  })
  after(() => server.close())

  async function oauth2App(type: 'confidential' | 'public' = 'confidential', accessLevel: AppRecord['accessLevel'] = 'read-write'): Promise<Client> {
    const { user: owner } = await makeUser(server.domain)
    const app = await makeApp(server.domain, { owner, callbackUrls: [REDIRECT], accessLevel })
    const change = await setOAuth2Client(server.domain, { appId: app.id, setting: type })
    return { app, owner, clientId: change.client!.clientId, clientSecret: change.newSecret }
  }

  function authorizeQuery(client: Client, options: { scope?: string; challenge?: string; method?: string; state?: string; redirectUri?: string } = {}) {
    return new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: options.redirectUri ?? REDIRECT,
      scope: options.scope ?? 'tweet.read users.read offline.access',
      state: options.state ?? 'state-123',
      code_challenge: options.challenge ?? challengeOf(newVerifier()),
      code_challenge_method: options.method ?? 's256',
    })
  }

  /** The person signs in on the consent page and presses a button; the redirect it answers with. */
  async function consent(client: Client, query: URLSearchParams, action: 'allow' | 'cancel' = 'allow', browser = new Browser(server.app)): Promise<URL> {
    const page = await browser.get(`/i/oauth2/authorize?${query}`)
    assert.equal(page.statusCode, 200, page.body)
    const fields = [...query, ['csrf_token', csrfOf(page.body)], ['action', action], ['username', person.user.screenName], ['password', person.password]] as Array<[string, string]>
    const answer = await browser.post('/i/oauth2/authorize', fields)
    assert.equal(answer.statusCode, 302, answer.body)
    return new URL(String(answer.headers.location))
  }

  /** A fresh code with its verifier, as an app gets it. */
  async function newCode(client: Client, scope?: string): Promise<{ code: string; verifier: string }> {
    const verifier = newVerifier()
    const location = await consent(client, authorizeQuery(client, { challenge: challengeOf(verifier), ...(scope ? { scope } : {}) }))
    assert.equal(location.searchParams.get('state'), 'state-123')
    return { code: location.searchParams.get('code')!, verifier }
  }

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    server.send({ method: 'POST', url: `${server.url}${path}`, headers: { 'content-type': FORM, ...headers }, body })

  const auth = (client: Client): Record<string, string> => (client.clientSecret ? { authorization: basic(client.clientId, client.clientSecret) } : {})

  async function exchange(client: Client, code: string, verifier: string, extra: Record<string, string> = {}, headers = auth(client)) {
    const fields = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, ...(client.clientSecret ? {} : { client_id: client.clientId }), ...extra }
    return post('/2/oauth2/token', new URLSearchParams(fields).toString(), headers)
  }

  const me = (token: string) => server.send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization: `Bearer ${token}` } })
  const json = (answer: { text: string }) => JSON.parse(answer.text) as Record<string, unknown>

  test('a confidential client: code → tokens → /2/users/me → refresh (JSON, Basic and body secret) → the old tokens stop working', async () => {
    const client = await oauth2App()
    const { code, verifier } = await newCode(client)
    const answer = await exchange(client, code, verifier)
    assert.equal(answer.status, 200, answer.text)
    const tokens = json(answer)
    assert.deepEqual(Object.keys(tokens).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type'])
    assert.equal(tokens.token_type, 'bearer')
    assert.equal(tokens.expires_in, 7200)
    assert.equal(tokens.scope, 'tweet.read users.read offline.access')
    assert.equal(answer.headers.get('cache-control'), 'no-store')

    const who = await me(String(tokens.access_token))
    assert.equal(who.status, 200, who.text)
    assert.deepEqual(json(who), { data: { id: person.user.id, name: person.user.name, username: person.user.screenName } })
    assert.ok(who.headers.get('x-rate-limit-limit'))

    const refreshed = await post(
      '/2/oauth2/token',
      JSON.stringify({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, client_secret: client.clientSecret }),
      { 'content-type': 'application/json', ...auth(client) },
    )
    assert.equal(refreshed.status, 200, refreshed.text)
    const next = json(refreshed)
    assert.notEqual(next.access_token, tokens.access_token)
    assert.notEqual(next.refresh_token, tokens.refresh_token)
    assert.equal((await me(String(next.access_token))).status, 200)
    const old = await me(String(tokens.access_token))
    assert.equal(old.status, 401)
    assert.deepEqual(json(old), { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' })

    // The spent refresh token again: refused, and the whole grant ends (RFC 9700 §4.14).
    const reuse = await post('/2/oauth2/token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) }).toString(), auth(client))
    assert.equal(reuse.status, 400)
    assert.equal(json(reuse).error, 'invalid_request')
    assert.equal((await me(String(next.access_token))).status, 401, 'the grant ended with the reuse')
  })

  test('a scope re-sent on refresh is accepted within the grant, refused beyond it', async () => {
    const client = await oauth2App()
    const { code, verifier } = await newCode(client)
    const { refresh_token: refreshToken } = json(await exchange(client, code, verifier))
    const beyond = await post('/2/oauth2/token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(refreshToken), scope: 'tweet.read tweet.write' }).toString(), auth(client))
    assert.equal(beyond.status, 400)
    assert.equal(json(beyond).error, 'invalid_scope')
    const within = await post('/2/oauth2/token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(refreshToken), scope: 'users.read tweet.read' }).toString(), auth(client))
    assert.equal(within.status, 200, within.text)
  })

  test('without offline.access there is no refresh token', async () => {
    const client = await oauth2App()
    const { code, verifier } = await newCode(client, 'tweet.read users.read')
    const tokens = json(await exchange(client, code, verifier))
    assert.equal(tokens.refresh_token, undefined)
    assert.equal(tokens.scope, 'tweet.read users.read')
  })

  test('a client_id with a control character (NUL included) at the token and revocation endpoints is an unknown client, never a 5xx (PostgreSQL refuses such text)', async () => {
    for (const path of ['/2/oauth2/token', '/2/oauth2/revoke']) {
      for (const clientId of ['abc\u0000def', 'abc\u0001', 'x'.repeat(300)]) {
        const answer = await post(path, new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r', token: 't', client_id: clientId }).toString())
        assert.ok(answer.status >= 400 && answer.status < 500, `${path} ${JSON.stringify(clientId)}: ${answer.status} ${answer.text}`)
      }
    }
  })

  test('a public client sends only client_id; with a secret it is refused', async () => {
    const client = await oauth2App('public')
    assert.equal(client.clientSecret, undefined)
    const first = await newCode(client)
    const withSecret = await exchange(client, first.code, first.verifier, { client_secret: 'not-a-secret' })
    assert.equal(withSecret.status, 401)
    assert.equal(json(withSecret).error, 'invalid_client')
    // The refusal spent nothing: the same code still works (client authentication comes first).
    const accepted = await exchange(client, first.code, first.verifier)
    assert.equal(accepted.status, 200, accepted.text)
    // An empty secret is none (Basic `client_id:` as requests-oauthlib sends it).
    const second = await newCode(client)
    assert.equal((await exchange(client, second.code, second.verifier, {}, { authorization: basic(client.clientId, '') })).status, 200)
  })

  test("a confidential client without its secret gets X's 401; with it, tokens", async () => {
    const client = await oauth2App()
    const { code, verifier } = await newCode(client)
    const without = await exchange(client, code, verifier, { client_id: client.clientId }, {})
    assert.equal(without.status, 401)
    assert.deepEqual(json(without), { error: 'unauthorized_client', error_description: 'Missing valid authorization header' })
    const wrong = await exchange(client, code, verifier, {}, { authorization: basic(client.clientId, `${client.clientSecret}x`) })
    assert.equal(wrong.status, 401)
    assert.equal(json(wrong).error, 'invalid_client')
    assert.equal((await exchange(client, code, verifier)).status, 200)
  })

  test('a secret regenerated with a grace period: the old one refreshes until it ends, then gets 401; the grant lives on', async () => {
    const client = await oauth2App()
    const { code, verifier } = await newCode(client)
    const tokens = json(await exchange(client, code, verifier))
    const regenerated = await regenerateClientSecret(server.domain, { appId: client.app.id, graceSeconds: 60 })
    const refresh = (token: unknown, secret: string) =>
      post('/2/oauth2/token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(token) }).toString(), { authorization: basic(client.clientId, secret) })
    assert.equal((await me(String(tokens.access_token))).status, 200, 'the grant lives on')
    const withOld = await refresh(tokens.refresh_token, client.clientSecret!)
    assert.equal(withOld.status, 200, withOld.text)
    // The shared clock: kept well within OAuth 1.0a's 300 s window, which later tests sign in.
    clock.advance(60_000)
    const lateOld = await refresh(json(withOld).refresh_token, client.clientSecret!)
    assert.equal(lateOld.status, 401)
    assert.equal(json(lateOld).error, 'invalid_client')
    const withNew = await refresh(json(withOld).refresh_token, regenerated!.newSecret!)
    assert.equal(withNew.status, 200, 'the refusal spent nothing; the new secret refreshes')
  })

  test("suspending the app ends its grants: /2/users/me and refresh refused, and still after the suspension is lifted", async () => {
    const client = await oauth2App()
    const { code, verifier } = await newCode(client)
    const tokens = json(await exchange(client, code, verifier))
    assert.equal((await me(String(tokens.access_token))).status, 200)
    await updateApp(server.domain, client.app.id, { isSuspended: true })
    await updateApp(server.domain, client.app.id, { isSuspended: false })
    assert.equal((await me(String(tokens.access_token))).status, 401)
    const refreshed = await post('/2/oauth2/token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) }).toString(), auth(client))
    assert.equal(refreshed.status, 400, refreshed.text)
    const fresh = await newCode(client)
    assert.equal((await exchange(client, fresh.code, fresh.verifier)).status, 200, 'a new consent after the suspension works')
  })

  test('authorize with force_login=true or prompt=login: a signed-in person is asked to sign in again; without, Allow alone is enough', async () => {
    const client = await oauth2App()
    const browser = new Browser(server.app)
    await consent(client, authorizeQuery(client), 'allow', browser)
    const allowAlone = async (query: URLSearchParams) => {
      const page = await browser.get(`/i/oauth2/authorize?${query}`)
      assert.equal(page.statusCode, 200, page.body)
      return { page, answer: await browser.post('/i/oauth2/authorize', [...query, ['csrf_token', csrfOf(page.body)], ['action', 'allow']] as Array<[string, string]>) }
    }
    for (const extra of [{ force_login: 'true' }, { prompt: 'login' }, { prompt: 'consent login' }]) {
      const query = authorizeQuery(client)
      for (const [name, value] of Object.entries(extra)) query.set(name, value)
      const { page, answer } = await allowAlone(query)
      assert.match(page.body, /name="password"/, `${JSON.stringify(extra)}: the sign-in fields, though signed in`)
      assert.equal(answer.statusCode, 401, `${JSON.stringify(extra)}: Allow without signing in again`)
      assert.equal(answer.headers.location, undefined)
    }
    const { page, answer } = await allowAlone(authorizeQuery(client))
    assert.doesNotMatch(page.body, /name="password"/)
    assert.equal(answer.statusCode, 302, 'the same request without force_login: Allow is enough')
    assert.ok(new URL(String(answer.headers.location)).searchParams.get('code'))
    const forced = authorizeQuery(client)
    forced.set('force_login', 'true')
    const location = await consent(client, forced, 'allow', browser)
    assert.ok(location.searchParams.get('code'), 'signing in again on the forced page gives a code')
  })

  test('a wrong verifier is refused; the right one is accepted', async () => {
    const client = await oauth2App()
    const first = await newCode(client)
    const wrong = await exchange(client, first.code, newVerifier())
    assert.equal(wrong.status, 400)
    assert.deepEqual(json(wrong), { error: 'invalid_request', error_description: 'Value passed for the authorization code was invalid.' })
    const second = await newCode(client)
    assert.equal((await exchange(client, second.code, second.verifier)).status, 200)
  })

  test('a code used twice: the second use is refused and ends what the first one issued', async () => {
    const client = await oauth2App()
    const { code, verifier } = await newCode(client)
    const first = json(await exchange(client, code, verifier))
    assert.equal((await me(String(first.access_token))).status, 200)
    const again = await exchange(client, code, verifier)
    assert.equal(again.status, 400)
    assert.equal(json(again).error, 'invalid_request')
    assert.equal((await me(String(first.access_token))).status, 401)
  })

  test('a redirect URI other than the one the code was issued for is refused', async () => {
    const client = await oauth2App()
    const { code, verifier } = await newCode(client)
    const other = await exchange(client, code, verifier, { redirect_uri: `${REDIRECT}/other` })
    assert.equal(other.status, 400)
    const second = await newCode(client)
    assert.equal((await exchange(client, second.code, second.verifier, { redirect_uri: REDIRECT })).status, 200)
  })

  test('a code lives 30 seconds', async () => {
    const client = await oauth2App()
    const late = await newCode(client)
    clock.advance(30_000)
    assert.equal((await exchange(client, late.code, late.verifier)).status, 400)
    const inTime = await newCode(client)
    clock.advance(29_000)
    assert.equal((await exchange(client, inTime.code, inTime.verifier)).status, 200)
  })

  test('authorize: an unregistered redirect URI or an unknown client gets an error page, never a redirect', async () => {
    const client = await oauth2App()
    for (const query of [authorizeQuery(client, { redirectUri: 'https://evil.example/cb' }), new URLSearchParams({ ...Object.fromEntries(authorizeQuery(client)), client_id: 'nobody' })]) {
      const page = await new Browser(server.app).get(`/i/oauth2/authorize?${query}`)
      assert.equal(page.statusCode, 400)
      assert.equal(page.headers.location, undefined)
      assert.match(String(page.headers['content-type']), /text\/html/)
    }
    assert.equal((await new Browser(server.app).get(`/i/oauth2/authorize?${authorizeQuery(client)}`)).statusCode, 200)
  })

  test('authorize: a scope above the app\'s access level goes back as invalid_scope with the state; within it, the consent page', async () => {
    const client = await oauth2App('confidential', 'read')
    const refused = await new Browser(server.app).get(`/i/oauth2/authorize?${authorizeQuery(client, { scope: 'tweet.read tweet.write' })}`)
    assert.equal(refused.statusCode, 302)
    const location = new URL(String(refused.headers.location))
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT)
    assert.equal(location.searchParams.get('error'), 'invalid_scope')
    assert.equal(location.searchParams.get('state'), 'state-123')
    const page = await new Browser(server.app).get(`/i/oauth2/authorize?${authorizeQuery(client, { scope: 'tweet.read users.read' })}`)
    assert.equal(page.statusCode, 200)
    assert.match(page.body, /See your profile/)
  })

  test('authorize: no state or no challenge goes back as invalid_request; Cancel as access_denied', async () => {
    const client = await oauth2App()
    for (const drop of ['state', 'code_challenge']) {
      const query = authorizeQuery(client)
      query.delete(drop)
      const refused = await new Browser(server.app).get(`/i/oauth2/authorize?${query}`)
      assert.equal(refused.statusCode, 302, drop)
      assert.equal(new URL(String(refused.headers.location)).searchParams.get('error'), 'invalid_request')
    }
    const denied = await consent(client, authorizeQuery(client), 'cancel')
    assert.equal(denied.searchParams.get('error'), 'access_denied')
    assert.equal(denied.searchParams.get('state'), 'state-123')
    assert.equal(denied.searchParams.get('code'), null)
  })

  test('revoking a refresh token ends the grant: its access token is refused at once', async () => {
    const client = await oauth2App()
    const { code, verifier } = await newCode(client)
    const tokens = json(await exchange(client, code, verifier))
    const revoked = await post('/2/oauth2/revoke', new URLSearchParams({ token: String(tokens.refresh_token), token_type_hint: 'refresh_token' }).toString(), auth(client))
    assert.equal(revoked.status, 200, revoked.text)
    assert.deepEqual(json(revoked), { revoked: true })
    assert.equal((await me(String(tokens.access_token))).status, 401)
  })

  test("/2/users/me: an app-only bearer token gets X's 403; OAuth 1.0a user context is accepted", async () => {
    const client = await oauth2App()
    const bearer = await handOutBearerToken(server.domain, client.app.id, null)
    const appOnly = await me(bearer.token)
    assert.equal(appOnly.status, 403)
    assert.deepEqual(json(appOnly), {
      title: 'Unsupported Authentication',
      detail: 'Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].',
      type: 'https://api.twitter.com/2/problems/unsupported-authentication',
      status: 403,
    })
    const { token, owner } = await issueOwnerToken(server.domain, client.app.id)
    const signed = await server.signedFetch({
      consumer: { key: client.app.consumerKey, secret: client.app.consumerSecret },
      token: { key: token.token, secret: token.secret },
      method: 'GET',
      url: `${server.url}/2/users/me`,
    })
    assert.equal(signed.status, 200, signed.text)
    assert.equal((json(signed).data as { username: string }).username, owner.screenName)
    // An OAuth 1.0a header that cannot be read (v1.1's 400 code 215) is X's v2 401 here, like a bad signature.
    const forged = signRequest({
      consumer: { key: client.app.consumerKey, secret: 'not-the-secret' },
      token: { key: token.token, secret: token.secret },
      method: 'GET',
      url: `${server.url}/2/users/me`,
    }).headers.authorization!
    for (const authorization of ['OAuth oauth_consumer_key="', forged]) {
      const refused = await server.send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization } })
      assert.equal(refused.status, 401, refused.text)
      assert.deepEqual(json(refused), { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' })
    }
  })

  test('introspection: a live user access token is active with its scopes, person, client and exp; once refreshed away it is not', async () => {
    const resourceServer = await makeApp(server.domain, { isResourceServer: true })
    const introspect = async (token: string) =>
      json(await post('/oauth2/introspect', new URLSearchParams({ token }).toString(), { authorization: basic(resourceServer.consumerKey, resourceServer.consumerSecret) }))
    const client = await oauth2App()
    const { code, verifier } = await newCode(client)
    const tokens = json(await exchange(client, code, verifier))
    const nowSeconds = Math.floor(clock.nowMs() / 1000)
    assert.deepEqual(await introspect(String(tokens.access_token)), {
      active: true,
      token_type: 'bearer',
      client_id: client.clientId,
      app_id: client.app.id,
      scope: 'tweet.read users.read offline.access',
      user_id: person.user.id,
      username: person.user.screenName,
      exp: nowSeconds + 7200,
    })
    assert.deepEqual(await introspect(String(tokens.refresh_token)), { active: false }, 'a refresh token is no bearer credential')
    await post('/2/oauth2/token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) }).toString(), auth(client))
    assert.deepEqual(await introspect(String(tokens.access_token)), { active: false })
  })

  test("the exported verifier's check knows a user access token, with its person and scopes; a revoked one is refused", async () => {
    const client = await oauth2App()
    const { code, verifier } = await newCode(client, 'tweet.read users.read')
    const tokens = json(await exchange(client, code, verifier))
    const input = { method: 'GET', scheme: 'https', host: 'api.example', path: '/things', query: '', contentType: undefined, body: undefined, isSecure: true }
    const { caller } = await identifyCaller(server.domain, { ...input, authorization: `Bearer ${String(tokens.access_token)}` }, null)
    assert.equal(caller.context, 'user')
    assert.ok(caller.context === 'user')
    assert.equal(caller.user.id, person.user.id)
    assert.equal(caller.app.id, client.app.id)
    assert.deepEqual(caller.scopes, ['tweet.read', 'users.read'])
    await post('/2/oauth2/revoke', new URLSearchParams({ token: String(tokens.access_token) }).toString(), auth(client))
    await assert.rejects(identifyCaller(server.domain, { ...input, authorization: `Bearer ${String(tokens.access_token)}` }, null), (error: { status?: number }) => error.status === 401)
  })

  test('Connected apps lists an OAuth 2.0 grant with what its scopes allow; Revoke ends it at once', async () => {
    const client = await oauth2App()
    const browser = new Browser(server.app)
    const verifier = newVerifier()
    const location = await consent(client, authorizeQuery(client, { challenge: challengeOf(verifier), scope: 'tweet.read users.read' }), 'allow', browser)
    const tokens = json(await exchange(client, location.searchParams.get('code')!, verifier))
    assert.equal((await me(String(tokens.access_token))).status, 200)
    const page = await browser.get('/settings/connected_apps')
    assert.equal(page.statusCode, 200)
    assert.match(page.body, new RegExp(`data-app-id="${client.app.id}"`))
    assert.match(page.body, /See your profile and the profiles of other accounts\./)
    const revoked = await browser.post('/settings/connected_apps/revoke', { csrf_token: csrfOf(page.body), revoke: client.app.id })
    assert.equal(revoked.statusCode, 302)
    assert.equal((await me(String(tokens.access_token))).status, 401)
    assert.doesNotMatch((await browser.get('/settings/connected_apps')).body, new RegExp(`data-app-id="${client.app.id}"`))
  })

  test('the metrics count each code, token and refresh, and a reuse that ends a grant, by kind', async () => {
    const counters = async () => counterValues(parseScrape(await server.observability!.scrape()), 'latchkey_tokens_')
    const client = await oauth2App()
    const before = await counters()
    const { code, verifier } = await newCode(client)
    const tokens = json(await exchange(client, code, verifier))
    const refresh = (token: unknown) => post('/2/oauth2/token', new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(token) }).toString(), auth(client))
    assert.equal((await refresh(tokens.refresh_token)).status, 200)
    assert.equal((await refresh(tokens.refresh_token)).status, 400)
    assert.deepEqual(deltas(before, await counters()), {
      [seriesKey('latchkey_tokens_issued_total', { kind: 'authorization_code' })]: 1,
      [seriesKey('latchkey_tokens_issued_total', { kind: 'user_access_token' })]: 2,
      [seriesKey('latchkey_tokens_issued_total', { kind: 'refresh_token' })]: 2,
      [seriesKey('latchkey_tokens_invalidated_total', { kind: 'user_access_token', reason: 'refresh_reuse' })]: 1,
    })
  })

  test('a plain challenge answers with the verifier itself; the first of a repeated authorize parameter counts', async () => {
    const client = await oauth2App()
    const other = await oauth2App()
    const verifier = newVerifier()
    const query = authorizeQuery(client, { challenge: verifier, method: 'plain' })
    query.append('client_id', other.clientId)
    const location = await consent(client, query)
    const code = location.searchParams.get('code')!
    assert.equal((await exchange(other, code, verifier)).status, 400, 'the code is the first client_id\'s')
    const second = await consent(client, authorizeQuery(client, { challenge: verifier, method: 'plain' }))
    assert.equal((await exchange(client, second.searchParams.get('code')!, verifier)).status, 200)
  })

  test('a body that is not JSON, an unknown grant type: 400 in the OAuth 2.0 shape, never a 5xx', async () => {
    const client = await oauth2App()
    const badJson = await post('/2/oauth2/token', '{"grant_type":', { 'content-type': 'application/json', ...auth(client) })
    assert.equal(badJson.status, 400)
    assert.equal(json(badJson).error, 'invalid_request')
    const notObject = await post('/2/oauth2/token', '["grant_type"]', { 'content-type': 'application/json', ...auth(client) })
    assert.equal(notObject.status, 400)
    const password = await post('/2/oauth2/token', 'grant_type=password&username=a&password=b', auth(client))
    assert.equal(password.status, 400)
    assert.equal(json(password).error, 'unsupported_grant_type')
    const missing = await post('/2/oauth2/token', '', auth(client))
    assert.equal(missing.status, 400)
    assert.equal(json(missing).error, 'invalid_request')
  })
})
