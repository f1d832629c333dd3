import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { gunzipSync } from 'node:zlib'
import oauthPkg from 'oauth'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { rotateAppKeys, updateApp } from '../../src/domain/registry/apps.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { errorCode, send, signedFetch } from '../helpers/oauth1-client.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'
import { countRows, deleteBehindStores, startTestServer, type TestServer } from '../helpers/test-app.ts'

const run = promisify(execFile)
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
const FORM = 'application/x-www-form-urlencoded;charset=UTF-8'

// service-spec §4.6 and §4.7: app-only bearer tokens.
describe('app-only bearer tokens', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  const tokenCall = (app: AppRecord, extra: { headers?: Record<string, string>; body?: string; query?: string } = {}) =>
    send({
      method: 'POST',
      url: `${server.url}/oauth2/token${extra.query ?? ''}`,
      headers: { authorization: basic(app.consumerKey, app.consumerSecret), 'content-type': FORM, ...extra.headers },
      body: extra.body ?? 'grant_type=client_credentials',
    })
  const ownerSigned = async (app: AppRecord, path: string) => {
    const { token } = await issueOwnerToken(server.domain, app.id)
    return { consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret }, url: `${server.url}${path}` }
  }

  test('the npm oauth OAuth2 client (client_id in the body) gets a bearer token, then the same one again', async () => {
    const app = await makeApp(server.domain)
    const client = new oauthPkg.OAuth2(app.consumerKey, app.consumerSecret, server.url, undefined, '/oauth2/token')
    const get = () =>
      new Promise<{ token: string; results: Record<string, unknown> }>((resolve, reject) =>
        client.getOAuthAccessToken('', { grant_type: 'client_credentials' }, (error, token, _refresh, results) =>
          error ? reject(new Error(JSON.stringify(error))) : resolve({ token: String(token), results }),
        ),
      )
    const first = await get()
    assert.equal(first.results.token_type, 'bearer')
    assert.ok(first.token.length > 100)
    assert.match(first.token, /^A{21}.*%3D/)
    assert.equal((await get()).token, first.token)
    // And it works on an app-only route.
    client.useAuthorizationHeaderforGET(true)
    const status = await new Promise<string>((resolve, reject) =>
      client.get(`${server.url}/1.1/application/rate_limit_status.json?resources=oauth2`, first.token, (error, data) =>
        error ? reject(new Error(JSON.stringify(error))) : resolve(String(data)),
      ),
    )
    const parsed = JSON.parse(status)
    assert.deepEqual(parsed.rate_limit_context, { application: app.consumerKey })
    assert.deepEqual(Object.keys(parsed.resources), ['oauth2'])
    assert.equal(parsed.resources.oauth2['/oauth2/token'].limit, 60)
  })

  test('curl: issue with -u, gzip when asked, rate_limit_status, owner-signed invalidation, 401/89, then a new token', async () => {
    const app = await makeApp(server.domain)
    const curl = async (...args: string[]) => (await run('curl', ['-s', '-w', '\n%{http_code}', ...args])).stdout.split('\n')
    const [body, status] = await curl('-u', `${app.consumerKey}:${app.consumerSecret}`, '--data', 'grant_type=client_credentials', `${server.url}/oauth2/token`)
    assert.equal(status, '200')
    const token = JSON.parse(body!).access_token as string
    // grant_type in the query, no body (the 2020+ docs' curl example); gzip-encoded when asked.
    const [compressed] = await curl('--compressed', '-u', `${app.consumerKey}:${app.consumerSecret}`, '-X', 'POST', `${server.url}/oauth2/token?grant_type=client_credentials`)
    assert.deepEqual(JSON.parse(compressed!), { token_type: 'bearer', access_token: token })
    const [limits, limitsStatus] = await curl('-H', `Authorization: Bearer ${token}`, `${server.url}/1.1/application/rate_limit_status.json`)
    assert.equal(limitsStatus, '200')
    assert.ok(JSON.parse(limits!).resources.account['/account/verify_credentials'])

    const invalidation = await signedFetch({ ...(await ownerSigned(app, `/oauth2/invalidate_token?access_token=${encodeURIComponent(token)}`)) })
    assert.equal(invalidation.status, 200)
    assert.equal(invalidation.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.deepEqual(invalidation.json, { access_token: token })
    const [afterBody, afterStatus] = await curl('-H', `Authorization: Bearer ${token}`, `${server.url}/1.1/application/rate_limit_status.json`)
    assert.equal(afterStatus, '401')
    assert.deepEqual(JSON.parse(afterBody!), { errors: [{ code: 89, message: 'Invalid or expired token.' }] })
    const [next] = await curl('-u', `${app.consumerKey}:${app.consumerSecret}`, '--data', 'grant_type=client_credentials', `${server.url}/oauth2/token`)
    assert.notEqual(JSON.parse(next!).access_token, token)
  })

  test('a bearer token of a suspended app gets 401 code 416, and of an app that no longer exists 401 code 89', async () => {
    const app = await makeApp(server.domain)
    const token = (await tokenCall(app)).json.access_token as string
    const call = () => send({ method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json`, headers: { authorization: `Bearer ${token}` } })
    assert.equal((await call()).status, 200)
    await updateApp(server.domain, app.id, { isSuspended: true })
    const suspended = await call()
    assert.equal(suspended.status, 401)
    assert.equal(errorCode(suspended), 416)
    await updateApp(server.domain, app.id, { isSuspended: false })
    assert.equal((await call()).status, 200)
    await deleteBehindStores(server.dbPath, 'apps', app.id)
    const gone = await call()
    assert.equal(gone.status, 401)
    assert.deepEqual(gone.json, { errors: [{ code: 89, message: 'Invalid or expired token.' }] })
  })

  test('the answer is gzip-encoded JSON with Cache-Control: no-store', async () => {
    const app = await makeApp(server.domain)
    const { headers, body } = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(`${server.url}/oauth2/token`, {
        method: 'POST',
        headers: { authorization: basic(app.consumerKey, app.consumerSecret), 'content-type': FORM, 'accept-encoding': 'gzip' },
      }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }))
      })
      req.on('error', reject)
      req.end('grant_type=client_credentials')
    })
    assert.equal(headers['content-encoding'], 'gzip')
    assert.equal(headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(headers['cache-control'], 'no-store')
    assert.equal(JSON.parse(gunzipSync(body).toString()).token_type, 'bearer')
  })

  test('fifty concurrent first calls for one app give one token', async () => {
    const app = await makeApp(server.domain)
    const answers = await Promise.all(Array.from({ length: 50 }, () => tokenCall(app)))
    assert.ok(answers.every((a) => a.status === 200))
    assert.equal(new Set(answers.map((a) => a.json.access_token)).size, 1)
  })

  test('the 61st call in a window gets 403 code 99', async () => {
    const app = await makeApp(server.domain)
    for (let i = 0; i < 60; i++) assert.equal((await tokenCall(app)).status, 200, `call ${i + 1}`)
    const answer = await tokenCall(app)
    assert.equal(answer.status, 403)
    assert.deepEqual(answer.json, { errors: [{ code: 99, message: 'Unable to verify your credentials', label: 'authenticity_token_error' }] })
  })

  test('the client secret is compared exactly: one that differs only in letter case gets 403 code 99', async () => {
    const app = await makeApp(server.domain)
    const swapped = [...app.consumerSecret].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')
    assert.notEqual(swapped, app.consumerSecret)
    await assertRefusedOnlyWhenBroken(
      (variant) => tokenCall(app, { headers: { authorization: basic(app.consumerKey, variant === 'broken' ? swapped : app.consumerSecret) } }),
      { status: 403, code: 99 },
    )
  })

  test('accepts Basic credentials whose halves are percent-encoded, reserved characters included', async () => {
    const app = await makeApp(server.domain)
    const encoded = basic(encodeURIComponent(app.consumerKey), encodeURIComponent(app.consumerSecret))
    assert.equal((await tokenCall(app, { headers: { authorization: encoded } })).status, 200)
    // Keys made by hand with reserved characters: only the RFC 6749 §2.3.1 encoding can carry them.
    const keys = { consumerKey: 'key:with%reserved+chars', consumerSecret: 'a:b%c+d&e=f/g?h é' }
    const reserved = (await server.domain.stores.apps.rotateKeys(app.id, { keys, revokeTokens: true, nowMs: Date.now() }))!
    const answer = await tokenCall(reserved, { headers: { authorization: basic(encodeURIComponent(keys.consumerKey), encodeURIComponent(keys.consumerSecret)) } })
    assert.equal(answer.status, 200, answer.text)
    const raw = await tokenCall(reserved, { headers: { authorization: basic(keys.consumerKey, keys.consumerSecret) } })
    assert.equal(errorCode(raw), 99, 'unencoded, the colon in the key splits it in the wrong place')
  })

  test('each error: missing grant_type 403/170, other grant 403/99, bad or malformed credentials 403/99, suspended 403/99; nothing issued', async () => {
    const app = await makeApp(server.domain)
    const before = await countRows(server.dbPath, 'bearer_tokens')
    const missing = await tokenCall(app, { body: '' })
    assert.equal(missing.status, 403)
    assert.deepEqual(missing.json.errors[0], { code: 170, message: 'Missing required parameter: grant_type' })
    const cases = [
      () => tokenCall(app, { body: 'grant_type=password' }),
      () => tokenCall(app, { headers: { authorization: basic(app.consumerKey, 'wrong') } }),
      () => tokenCall(app, { headers: { authorization: basic('unknown-key', 'x') } }),
      () => tokenCall(app, { headers: { authorization: 'Basic !!!notbase64' } }),
      () => tokenCall(app, { headers: { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` } }),
      () => tokenCall(app, { headers: { authorization: 'Basic' } }),
      async () => {
        await updateApp(server.domain, app.id, { isSuspended: true })
        try {
          return await tokenCall(app)
        } finally {
          await updateApp(server.domain, app.id, { isSuspended: false })
        }
      },
    ]
    for (const broken of cases) {
      const answer = await broken()
      assert.deepEqual([answer.status, errorCode(answer), answer.json.errors[0].label], [403, 99, 'authenticity_token_error'], answer.text)
    }
    assert.equal(await countRows(server.dbPath, 'bearer_tokens'), before, 'no refusal issued a token')
    // The same call unbroken, after every refusal, is accepted: the refusals were about what was broken.
    for (const broken of [() => tokenCall(app, { body: '' }), ...cases]) {
      await assertRefusedOnlyWhenBroken((variant) => (variant === 'broken' ? broken() : tokenCall(app)), { status: 403 })
    }
    assert.equal(await countRows(server.dbPath, 'bearer_tokens'), before + 1, 'one token, issued once and then reused')
  })

  test('client credentials in the URL are refused with 403 code 99 on every endpoint; the same credentials in the body or in Basic are accepted', async () => {
    const app = await makeApp(server.domain)
    const id = encodeURIComponent(app.consumerKey)
    const secret = encodeURIComponent(app.consumerSecret)
    const inBody = await send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { 'content-type': FORM }, body: `grant_type=client_credentials&client_id=${id}&client_secret=${secret}` })
    assert.equal(inBody.status, 200)
    const inUrl = await send({ method: 'POST', url: `${server.url}/oauth2/token?grant_type=client_credentials&client_id=${id}&client_secret=${secret}`, headers: { 'content-type': FORM }, body: '' })
    assert.deepEqual([inUrl.status, errorCode(inUrl), inUrl.json.errors[0].label], [403, 99, 'authenticity_token_error'])
    // Even beside valid Basic credentials, and with the name percent-encoded, and on an OAuth 1.0a endpoint.
    const besideBasic = await tokenCall(app, { query: `?client%5Fsecret=${secret}` })
    assert.deepEqual([besideBasic.status, errorCode(besideBasic)], [403, 99])
    // A name with no value is still that name in the URL.
    const nameOnly = await tokenCall(app, { query: '?grant_type=client_credentials&client_secret' })
    assert.deepEqual([nameOnly.status, errorCode(nameOnly)], [403, 99])
    const onRequestToken = await signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, url: `${server.url}/oauth/request_token?client_id=${id}`, oauth: { oauth_callback: 'oob' } })
    assert.deepEqual([onRequestToken.status, errorCode(onRequestToken)], [403, 99])
    // grant_type alone in the query stays accepted (the 2020+ docs' curl example).
    assert.equal((await tokenCall(app, { query: '?grant_type=client_credentials', body: '' })).status, 200)
  })

  test('rotating the app keys invalidates its bearer token', async () => {
    const app = await makeApp(server.domain)
    const token = (await tokenCall(app)).json.access_token
    const rotated = await rotateAppKeys(server.domain, app.id)
    const use = await send({ method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json`, headers: { authorization: `Bearer ${token}` } })
    assert.equal(errorCode(use), 89)
    const fresh = await tokenCall(rotated)
    assert.notEqual(fresh.json.access_token, token)
  })

  describe('POST /oauth2/invalidate_token', () => {
    test('with Basic credentials and the token percent-encoded once more in the body', async () => {
      const app = await makeApp(server.domain)
      const token = (await tokenCall(app)).json.access_token as string
      const answer = await send({
        method: 'POST',
        url: `${server.url}/oauth2/invalidate_token`,
        headers: { authorization: basic(app.consumerKey, app.consumerSecret), 'content-type': FORM },
        body: `access_token=${encodeURIComponent(token)}`,
      })
      assert.equal(answer.status, 200)
      assert.deepEqual(answer.json, { access_token: token })
    })

    test('with Basic credentials and the token written raw in the body, as the 2013 docs show', async () => {
      const app = await makeApp(server.domain)
      const token = (await tokenCall(app)).json.access_token as string
      const answer = await send({ method: 'POST', url: `${server.url}/oauth2/invalidate_token`, headers: { authorization: basic(app.consumerKey, app.consumerSecret), 'content-type': FORM }, body: `access_token=${token}` })
      assert.equal(answer.status, 200)
    })

    test('with Bearer and the very token being invalidated; a Bearer naming another token is refused', async () => {
      const app = await makeApp(server.domain)
      const token = (await tokenCall(app)).json.access_token as string
      const other = await makeApp(server.domain)
      const otherToken = (await tokenCall(other)).json.access_token as string
      const wrong = await send({ method: 'POST', url: `${server.url}/oauth2/invalidate_token`, headers: { authorization: `Bearer ${token}`, 'content-type': FORM }, body: `access_token=${encodeURIComponent(otherToken)}` })
      assert.equal(errorCode(wrong), 99)
      const answer = await send({ method: 'POST', url: `${server.url}/oauth2/invalidate_token`, headers: { authorization: `Bearer ${token}`, 'content-type': FORM }, body: `access_token=${encodeURIComponent(token)}` })
      assert.equal(answer.status, 200)
      const again = await send({ method: 'POST', url: `${server.url}/oauth2/invalidate_token`, headers: { authorization: `Bearer ${token}`, 'content-type': FORM }, body: `access_token=${encodeURIComponent(token)}` })
      assert.equal(again.status, 401, 'an invalidated Bearer authenticates nothing')
      assert.equal(errorCode(again), 89)
    })

    test('an unknown or already invalidated token gets 403 code 99, not 200', async () => {
      const app = await makeApp(server.domain)
      const token = (await tokenCall(app)).json.access_token as string
      const call = (value: string) =>
        send({ method: 'POST', url: `${server.url}/oauth2/invalidate_token?access_token=${encodeURIComponent(value)}`, headers: { authorization: basic(app.consumerKey, app.consumerSecret) } })
      assert.equal(errorCode(await call('AAAAAAAAAAAAAAAAAAAAAnope%3Dnope')), 99)
      assert.equal((await call(token)).status, 200)
      const again = await call(token)
      assert.equal(again.status, 403)
      assert.equal(errorCode(again), 99)
    })

    test("another app's credentials cannot invalidate this app's token", async () => {
      const app = await makeApp(server.domain)
      const token = (await tokenCall(app)).json.access_token as string
      const other = await makeApp(server.domain)
      await assertRefusedOnlyWhenBroken(
        (variant) => {
          const owner = variant === 'broken' ? other : app
          return send({ method: 'POST', url: `${server.url}/oauth2/invalidate_token?access_token=${encodeURIComponent(token)}`, headers: { authorization: basic(owner.consumerKey, owner.consumerSecret) } })
        },
        { status: 403, code: 99 },
      )
    })

    test('an OAuth 1.0a call by a user who is not the owner gets 403 code 220; the owner\'s same call is accepted', async () => {
      const app = await makeApp(server.domain)
      const token = (await tokenCall(app)).json.access_token as string
      const stranger = (await makeUser(server.domain)).user
      const { issueOrReuseAccessToken } = await import('../../src/domain/oauth1/issue-access-token.ts')
      const strangerToken = await issueOrReuseAccessToken(server.domain, { appId: app.id, userId: stranger.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
      const path = `/oauth2/invalidate_token?access_token=${encodeURIComponent(token)}`
      await assertRefusedOnlyWhenBroken(
        async (variant) =>
          signedFetch(
            variant === 'broken'
              ? { consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: strangerToken.token, secret: strangerToken.secret }, url: `${server.url}${path}` }
              : await ownerSigned(app, path),
          ),
        { status: 403, code: 220 },
      )
    })
  })
})
