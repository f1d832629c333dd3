import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { updateApp } from '../../src/domain/registry/apps.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'
import { buildTestApp, testClock, type TestApp } from '../helpers/test-app.ts'
import { makeRequestToken } from '../helpers/consent-pages.ts'

describe('consent pages for a link that cannot work', () => {
  const clock = testClock()
  let t: TestApp
  before(async () => {
    t = await buildTestApp({ clock })
  })
  after(() => t.close())

  async function open(url: string) {
    const response = await t.app.inject({ method: 'GET', url })
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(String(response.headers['content-security-policy']), /frame-ancestors 'none'/)
    assert.doesNotMatch(response.body, /id="allow"/, 'no way to approve')
    return response
  }

  test('without oauth_token: 400, saying the link has no request token', async () => {
    const response = await open('/oauth/authorize')
    assert.equal(response.statusCode, 400)
    assert.match(response.body, /This link has no request token\. Go back to the app and start again\./)
  })

  test('with an unknown oauth_token: 404, saying the link is not valid', async () => {
    const response = await open('/oauth/authorize?oauth_token=nothing-like-this')
    assert.equal(response.statusCode, 404)
    assert.match(response.body, /This link is not valid\./)
  })

  test('with an expired request token: 410, saying the link has expired', async () => {
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    clock.advance(t.domain.settings.requestTokenTtlSeconds * 1000 + 1)
    const response = await open(`/oauth/authorize?oauth_token=${rt.token}`)
    assert.equal(response.statusCode, 410)
    assert.match(response.body, /This link has expired\./)
  })

  test('with a request token already approved, used or cancelled: 410, saying it was already used', async () => {
    const app = await makeApp(t.domain)
    for (const status of ['authorized', 'used', 'denied'] as const) {
      const rt = await makeRequestToken(t.domain, app, { status })
      const response = await open(`/oauth/authenticate?oauth_token=${rt.token}`)
      assert.equal(response.statusCode, 410, status)
      assert.match(response.body, /This link has already been used or cancelled\./)
    }
  })

  test('for a suspended app: 403, saying the app has been suspended', async () => {
    const app = await makeApp(t.domain, { isSuspended: true })
    const rt = await makeRequestToken(t.domain, app)
    const response = await open(`/oauth/authorize?oauth_token=${rt.token}`)
    assert.match(response.body, /This app has been suspended\./)
    // The same link once the app is no longer suspended shows the consent page.
    await assertRefusedOnlyWhenBroken(async (variant) => {
      if (variant === 'broken') return open(`/oauth/authorize?oauth_token=${rt.token}`)
      await updateApp(t.domain, app.id, { isSuspended: false })
      return t.app.inject({ method: 'GET', url: `/oauth/authorize?oauth_token=${rt.token}` })
    }, { status: 403 })
  })

  test('a desktop app on /oauth/authenticate: 403, saying desktop apps cannot use it', async () => {
    const app = await makeApp(t.domain, { type: 'desktop', callbackUrls: [] })
    const rt = await makeRequestToken(t.domain, app, { callback: 'oob' })
    const response = await open(`/oauth/authenticate?oauth_token=${rt.token}`)
    assert.equal(response.statusCode, 403)
    assert.match(response.body, /Desktop apps cannot use this sign-in page\./)
    const authorize = await t.app.inject({ method: 'GET', url: `/oauth/authorize?oauth_token=${rt.token}` })
    assert.equal(authorize.statusCode, 200, 'the same token works on authorize')
  })
})

describe('consent pages outside development mode', () => {
  test('over plain http: 403, asking for a secure connection', async (ctx) => {
    const t = await buildTestApp({ http: { dev: false } })
    ctx.after(() => t.close())
    const response = await t.app.inject({ method: 'GET', url: '/oauth/authorize?oauth_token=x' })
    assert.equal(response.statusCode, 403)
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(response.body, /This page must be opened over a secure \(https\) connection\./)
  })
})

describe('a path the router cannot read (not UTF-8, a parameter too long)', () => {
  let t: TestApp
  before(async () => {
    t = await buildTestApp()
  })
  after(() => t.close())

  test("on a page's path: the plain HTML error page; on the API's: the JSON error body; never Fastify's own answer, which echoes the path", async () => {
    for (const url of ['/console/apps/%FF', '/settings/%E0%A4%A', `/console/apps/${'9'.repeat(120)}`]) {
      const answer = await t.app.inject({ method: 'GET', url })
      assert.ok(answer.statusCode === 400 || answer.statusCode === 414, `${url}: ${answer.statusCode}`)
      assert.equal(answer.headers['content-type'], 'text/html; charset=utf-8', url)
      assert.match(answer.body, /This request did not work/, url)
      assert.doesNotMatch(answer.body, /FST_ERR|%FF|%E0/, url)
    }
    for (const url of ['/1.1/account/%FF', '/oauth/%E0%A4%A']) {
      const answer = await t.app.inject({ method: 'GET', url })
      assert.equal(answer.statusCode, 400, url)
      assert.match(String(answer.headers['content-type']), /^application\/json/, url)
      assert.deepEqual(JSON.parse(answer.body), { errors: [{ code: 1000, message: JSON.parse(answer.body).errors[0].message }] }, url)
      assert.doesNotMatch(answer.body, /FST_ERR|%FF|%E0/, url)
    }
  })
})
