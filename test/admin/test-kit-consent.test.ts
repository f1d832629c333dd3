// The test kit's consent without a browser over the admin API (src/admin/routes/test-kit-consent.ts):
// registered as test mode registers it, answering what the page would have done, or a problem document.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { compileErrors, validate } from '@readme/openapi-parser'
import { testConsentRoutes } from '../../src/admin/routes/test-kit-consent.ts'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { makeUser } from '../helpers/fixtures.ts'
import { authorizeParameters, newVerifier, oauth2Client, REDIRECT } from '../helpers/oauth2-user.ts'

const OAUTH1 = '/admin/v1/test/consent/oauth1'
const OAUTH2 = '/admin/v1/test/consent/oauth2'

describe('POST /admin/v1/test/consent/* (test mode)', () => {
  let server: AdminTestServer
  let consumer: { key: string; secret: string }
  let person: string
  before(async () => {
    server = await injectedAdminTestServer({ adminRoutes: [testConsentRoutes] })
    person = (await server.admin('POST', '/admin/v1/users', { screen_name: 'tess_tester', password: 'long enough' })).json.user_id
    const made = await server.admin('POST', '/admin/v1/apps', { name: 'Client under test', owner: person, callbacks: ['https://client.example/cb'], type: 'web', sign_in: true, access_level: 'read-write' })
    consumer = { key: made.json.consumer_key, secret: made.json.consumer_secret }
  })
  after(() => server.close())

  const requestToken = async (callback = 'https://client.example/cb') => {
    const answer = await server.signedFetch({ consumer, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: callback } })
    assert.equal(answer.status, 200, answer.text)
    return { key: answer.form.oauth_token!, secret: answer.form.oauth_token_secret! }
  }
  const exchange = (token: { key: string; secret: string }, verifier: string) =>
    server.signedFetch({ consumer, token, url: `${server.url}/oauth/access_token`, oauth: { oauth_verifier: verifier } })

  test('OAuth 1.0a allow: the callback with oauth_token and oauth_verifier, which the app exchanges for the person\'s access token; audited as the person', async () => {
    const token = await requestToken()
    const answer = await server.admin('POST', OAUTH1, { oauth_token: token.key, screen_name: 'Tess_Tester', decision: 'allow' })
    assert.equal(answer.status, 200, answer.text)
    const location = new URL(answer.json.location)
    assert.equal(`${location.origin}${location.pathname}`, 'https://client.example/cb')
    assert.equal(location.searchParams.get('oauth_token'), token.key)
    const exchanged = await exchange(token, location.searchParams.get('oauth_verifier')!)
    assert.equal(exchanged.status, 200, exchanged.text)
    assert.deepEqual([exchanged.form.user_id, exchanged.form.screen_name], [person, 'tess_tester'])
    const [granted] = (await server.admin('GET', `/admin/v1/audit?user_id=${person}&event=consent.granted`)).json.data
    assert.equal(granted.user_id, person)
    assert.equal(granted.detail.flow, 'authorize')
    assert.equal(granted.detail.actor, `admin_token:${server.tokenId}`, 'the trail also names the admin token that answered for them')
  })

  test('OAuth 1.0a oob: a PIN the app exchanges; deny: denied=<token> at the callback, and the token cannot be exchanged', async () => {
    const oob = await requestToken('oob')
    const pinned = await server.admin('POST', OAUTH1, { oauth_token: oob.key, screen_name: 'tess_tester', decision: 'allow' })
    assert.match(pinned.json.pin, /^\d{7}$/, pinned.text)
    assert.equal((await exchange(oob, pinned.json.pin)).status, 200)
    const denied = await requestToken()
    const answer = await server.admin('POST', OAUTH1, { oauth_token: denied.key, screen_name: 'tess_tester', decision: 'deny' })
    assert.deepEqual([answer.status, answer.json], [200, { location: `https://client.example/cb?denied=${denied.key}` }])
    assert.equal((await exchange(denied, 'any-verifier')).status, 401)
    const oobDenied = await requestToken('oob')
    assert.deepEqual((await server.admin('POST', OAUTH1, { oauth_token: oobDenied.key, screen_name: 'tess_tester', decision: 'deny' })).json, { denied: true })
  })

  test('OAuth 1.0a refusals are problem documents, each beside the call accepted: an unknown token 404, an unknown person 404, a bad decision 400, a used token 410', async () => {
    const token = await requestToken()
    const good = { oauth_token: token.key, screen_name: 'tess_tester', decision: 'allow' }
    const refusals: Array<[string, object, number, string | undefined]> = [
      ['unknown token', { ...good, oauth_token: `${token.key}x` }, 404, undefined],
      ['unknown person', { ...good, screen_name: 'nobody_at_all' }, 404, 'screen_name'],
      ['not a screen name', { ...good, screen_name: 'no one' }, 400, 'screen_name'],
      ['bad decision', { ...good, decision: 'maybe' }, 400, 'decision'],
      ['unknown field', { ...good, flow: 'authenticate' }, 400, 'flow'],
      ['no token', { screen_name: 'tess_tester', decision: 'allow' }, 400, 'oauth_token'],
    ]
    for (const [name, body, status, field] of refusals) {
      const answer = await server.admin('POST', OAUTH1, body)
      assert.equal(answer.status, status, `${name}: ${answer.text}`)
      assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/, name)
      if (field) assert.deepEqual(answer.json.errors?.map((e: { field: string }) => e.field), [field], name)
    }
    assert.equal((await server.admin('POST', OAUTH1, good)).status, 200, 'the refusals changed nothing')
    const used = await server.admin('POST', OAUTH1, good)
    assert.deepEqual([used.status, used.json.detail], [410, 'This link has already been used or cancelled. Go back to the app and start again.'])
  })

  test('a disabled person is refused (400) and, once enabled, consents', async () => {
    const { user } = await makeUser(server.domain, { screenName: 'dora_disabled' })
    const token = await requestToken()
    assert.equal((await server.admin('PATCH', `/admin/v1/users/${user.id}`, { disabled: true })).status, 200)
    const refused = await server.admin('POST', OAUTH1, { oauth_token: token.key, screen_name: 'dora_disabled', decision: 'allow' })
    assert.deepEqual([refused.status, refused.json.detail], [400, '@dora_disabled is disabled and cannot sign in to consent'])
    assert.equal((await server.admin('PATCH', `/admin/v1/users/${user.id}`, { disabled: false })).status, 200)
    assert.equal((await server.admin('POST', OAUTH1, { oauth_token: token.key, screen_name: 'dora_disabled', decision: 'allow' })).status, 200)
  })

  test('OAuth 2.0: the authorize URL or its parameters; allow answers code and state, deny access_denied and state', async () => {
    const client = await oauth2Client(server.domain)
    const verifier = newVerifier()
    const authorizeUrl = `${server.url}/i/oauth2/authorize?${new URLSearchParams(authorizeParameters(client, verifier, 'tweet.read users.read'))}`
    const allowed = await server.admin('POST', OAUTH2, { screen_name: 'tess_tester', decision: 'allow', authorize_url: authorizeUrl })
    assert.equal(allowed.status, 200, allowed.text)
    const location = new URL(allowed.json.location)
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT)
    assert.equal(location.searchParams.get('state'), 'state-1')
    assert.match(location.searchParams.get('code') ?? '', /^[A-Za-z0-9]{64}$/)
    const denied = await server.admin('POST', OAUTH2, { screen_name: 'tess_tester', decision: 'deny', ...authorizeParameters(client, verifier, 'tweet.read') })
    assert.deepEqual([denied.status, denied.json], [200, { location: `${REDIRECT}?error=access_denied&state=state-1` }])
  })

  test('OAuth 2.0 refusals are problem documents: a bad scope or challenge 400 naming the error, an unknown client 400, a suspended app 403, both forms at once 400', async () => {
    const client = await oauth2Client(server.domain)
    const good = { screen_name: 'tess_tester', decision: 'allow', ...authorizeParameters(client, newVerifier(), 'tweet.read') }
    const refusals: Array<[string, object, number, RegExp]> = [
      ['bad scope', { ...good, scope: 'tweet.fly' }, 400, /invalid_scope: unknown scope: tweet\.fly/],
      ['bad challenge', { ...good, code_challenge: 'short' }, 400, /invalid_request: code_challenge is required/],
      ['unknown client', { ...good, client_id: 'nope' }, 400, /the app that sent you here is not known/],
      ['redirect not registered', { ...good, redirect_uri: 'https://evil.example/cb' }, 400, /has not registered/],
      ['both forms', { ...good, authorize_url: `${server.url}/i/oauth2/authorize` }, 400, /not both/],
      ['authorize_url not a URL', { screen_name: 'tess_tester', decision: 'allow', authorize_url: 'not a url' }, 400, /invalid fields/],
    ]
    for (const [name, body, status, detail] of refusals) {
      const answer = await server.admin('POST', OAUTH2, body)
      assert.equal(answer.status, status, `${name}: ${answer.text}`)
      assert.match(answer.json.detail, detail, name)
    }
    assert.equal((await server.admin('PATCH', `/admin/v1/apps/${client.app.id}`, { suspended: true })).status, 200)
    assert.equal((await server.admin('POST', OAUTH2, good)).status, 403)
    assert.equal((await server.admin('PATCH', `/admin/v1/apps/${client.app.id}`, { suspended: false })).status, 200)
    assert.equal((await server.admin('POST', OAUTH2, good)).status, 200, 'each refusal changed nothing')
  })

  test('a control character or a NUL in any text field is a 4xx problem, never a 5xx, and changes nothing (PostgreSQL refuses such text)', async () => {
    const token = await requestToken()
    const client = await oauth2Client(server.domain)
    const oauth2 = { screen_name: 'tess_tester', decision: 'allow', ...authorizeParameters(client, newVerifier(), 'tweet.read') }
    const bodies: Array<[string, object]> = [
      [OAUTH1, { oauth_token: `${token.key}\u0000`, screen_name: 'tess_tester', decision: 'allow' }],
      [OAUTH1, { oauth_token: '\u0000', screen_name: 'tess_tester', decision: 'allow' }],
      [OAUTH1, { oauth_token: token.key, screen_name: 'tess\u0000', decision: 'allow' }],
    ]
    // The state is the app's own opaque text, echoed back encoded, as the page does: not among them.
    for (const field of ['client_id', 'redirect_uri', 'scope', 'code_challenge', 'code_challenge_method', 'response_type'] as const) {
      bodies.push([OAUTH2, { ...oauth2, [field]: `${(oauth2 as Record<string, string>)[field]}\u0000\u0007` }])
    }
    bodies.push([OAUTH2, { screen_name: 'tess_tester', decision: 'allow', authorize_url: `${server.url}/i/oauth2/authorize?client_id=%00&state=%07` }])
    for (const [path, body] of bodies) {
      const answer = await server.admin('POST', path, body)
      assert.ok(answer.status >= 400 && answer.status < 500, `${JSON.stringify(body)}: ${answer.status} ${answer.text}`)
      assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/)
    }
    assert.equal((await server.admin('POST', OAUTH1, { oauth_token: token.key, screen_name: 'tess_tester', decision: 'allow' })).status, 200)
    assert.equal((await server.admin('POST', OAUTH2, oauth2)).status, 200)
  })

  test('needs an admin token, and appears in the OpenAPI document once registered, which stays valid OpenAPI 3.1', async () => {
    const token = await requestToken()
    const anonymous = await server.admin('POST', OAUTH1, { oauth_token: token.key, screen_name: 'tess_tester', decision: 'allow' }, { auth: null })
    assert.equal(anonymous.status, 401)
    const document = (await server.admin('GET', '/admin/v1/openapi.json')).json
    assert.deepEqual([document.paths[OAUTH1]?.post?.operationId, document.paths[OAUTH2]?.post?.operationId], ['testConsentOAuth1', 'testConsentOAuth2'])
    const result = await validate(document)
    assert.ok(result.valid, result.valid ? '' : compileErrors(result))
  })
})

describe('an admin API without test mode', () => {
  test('has no consent routes', async () => {
    const server = await injectedAdminTestServer()
    try {
      assert.equal((await server.admin('POST', OAUTH1, { oauth_token: 'x', screen_name: 'x', decision: 'allow' })).status, 404)
      assert.equal((await server.admin('GET', '/admin/v1/openapi.json')).json.paths[OAUTH2], undefined)
    } finally {
      await server.close()
    }
  })
})
