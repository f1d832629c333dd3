import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import pino from 'pino'
import { pagesPlugin } from '../../src/pages/plugin.ts'
import type { SignInThrottle } from '../../src/domain/sign-in.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { buildTestApp, openTestDomain } from '../helpers/test-app.ts'
import { Browser, csrfOf } from '../helpers/browser.ts'
import { makeRequestToken, openAndPress } from '../helpers/consent-pages.ts'

const brokenThrottle: SignInThrottle = {
  admit: async () => {
    throw new Error('limiter store password=hunter2 unreachable')
  },
  succeeded: async () => {},
  refusal: async () => ({ waitMs: 0, isFirst: true }),
}

describe('the pages error handler', () => {
  test('an unexpected failure shows a plain 500 page with no detail, and logs it with the request id', async (ctx) => {
    const t = await openTestDomain()
    const logLines: string[] = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) })
    // The same cast as src/app.ts: a pino Logger instance narrows Fastify's logger type.
    const app = Fastify({ loggerInstance: logger, genReqId: () => 'req-42' }) as unknown as FastifyInstance
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
    const http = { dev: true, publicUrl: undefined, trustProxy: [], cookieSecret: 'x'.repeat(32) }
    await app.register(pagesPlugin({ domain: t.domain, throttle: brokenThrottle, http }))
    ctx.after(async () => {
      await app.close()
      await t.close()
    })

    const { user, password } = await makeUser(t.domain)
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const response = await openAndPress(new Browser(app), '/oauth/authorize', rt.token, 'allow', { username: user.screenName, password })
    assert.equal(response.statusCode, 500)
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(response.body, /<h1>Something went wrong<\/h1>/)
    assert.match(response.body, /Something went wrong on our side/)
    assert.match(response.body, /Reference: req-42/)
    assert.doesNotMatch(response.body, /hunter2|limiter store/)
    const logged = logLines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'page failed')
    assert.equal(logged?.reqId, 'req-42')
    assert.equal(logged?.level, 50)
    assert.equal(logged?.err?.type, 'Error', 'with the error itself')
    assert.ok(!logLines.join('').includes(password), 'the password is never logged')
  })
})

describe('what each refusal page says', () => {
  const h1 = (body: string) => /<h1>([^<]*)<\/h1>/.exec(body)?.[1]
  const alert = (body: string) => /<p role="alert">([^<]*)<\/p>/.exec(body)?.[1]

  test('its title and sentence by status, no reference number, and an info line in the log with the code', async (ctx) => {
    const logLines: string[] = []
    const t = await buildTestApp({ logLines, settings: { rateLimits: { '/oauth/authenticate': 1 } } })
    ctx.after(() => t.close())
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const browser = new Browser(t.app)
    const page = await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
    await browser.post('/oauth/authorize', { csrf_token: csrfOf(page.body), oauth_token: rt.token, action: 'cancel' })
    await new Browser(t.app, '10.8.0.1').get(`/oauth/authenticate?oauth_token=${rt.token}`)
    const cases: Array<[string, () => Promise<{ statusCode: number; body: string }>, number, string, string]> = [
      ['a bad request', () => new Browser(t.app).get('/oauth/authorize?oauth_token=%zz'), 400, 'This request did not work', 'This request was not valid. Go back to the app and start again.'],
      ['a forged form', () => new Browser(t.app).post('/oauth/authorize', { oauth_token: rt.token, action: 'allow' }), 403, 'This is not allowed', 'This form has expired or did not come from this site. Go back to the app and start again.'],
      ['an unknown token', () => new Browser(t.app).get('/oauth/authorize?oauth_token=unknown'), 404, 'This link does not work', ''],
      ['a token used up', () => new Browser(t.app).get(`/oauth/authorize?oauth_token=${rt.token}`), 410, 'This link does not work', ''],
      ['past the limit', () => new Browser(t.app, '10.8.0.1').get(`/oauth/authenticate?oauth_token=${rt.token}`), 429, 'Too many attempts', 'Too many requests from your network. Please wait a few minutes and try again.'],
      ['a form too large', () => new Browser(t.app).post('/oauth/authorize', { oauth_token: rt.token, filler: 'x'.repeat(2_000_000) }), 413, 'This request did not work', 'The form sent was too large.'],
    ]
    for (const [what, load, status, title, sentence] of cases) {
      const answer = await load()
      assert.equal(answer.statusCode, status, what)
      assert.equal(h1(answer.body), title, what)
      if (sentence) assert.equal(alert(answer.body), sentence, what)
      assert.doesNotMatch(answer.body, /Reference:/, what)
    }
    const entries = logLines.map((line) => JSON.parse(line) as { level: number; msg?: string; code?: number })
    assert.deepEqual(entries.filter((entry) => entry.level >= 50), [], 'no refusal is logged as a failure')
    const refused = entries.filter((entry) => entry.msg === 'page refused')
    assert.ok(refused.length >= 4)
    assert.ok(refused.every((entry) => entry.level === 30 && typeof entry.code === 'number'))
  })

  test('a path the router refuses on a page is a plain page: 414 for a path parameter over its bound, 400 for escapes that are not UTF-8', async (ctx) => {
    const t = await buildTestApp()
    ctx.after(() => t.close())
    const long = await t.app.inject({ method: 'GET', url: `/console/apps/${'1'.repeat(200)}` })
    assert.equal(long.statusCode, 414)
    assert.equal(long.headers['content-type'], 'text/html; charset=utf-8')
    assert.equal(h1(long.body), 'This request did not work')
    const bad = await t.app.inject({ method: 'GET', url: '/console/%ff' })
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.headers['content-type'], 'text/html; charset=utf-8')
    for (const answer of [long, bad]) {
      // Refused before any hook runs: the page's own headers are all it has.
      assert.equal(answer.headers['cache-control'], 'no-store')
      assert.equal(answer.headers['x-frame-options'], 'DENY')
      assert.match(String(answer.headers['content-security-policy']), /form-action 'none'/)
    }
  })

  test("a path the router refuses is a page only under the pages' own paths; under the API's, even one that ends like a page, it is JSON", async (ctx) => {
    const t = await buildTestApp()
    ctx.after(() => t.close())
    for (const url of ['/console/%ff', '/settings/%ff', '/docs/%ff', '/oauth/authorize/%ff', '/i/oauth2/authorize/%ff']) {
      const answer = await t.app.inject({ method: 'GET', url })
      assert.equal(answer.statusCode, 400, url)
      assert.equal(answer.headers['content-type'], 'text/html; charset=utf-8', url)
    }
    for (const url of ['/nope/console/%ff', '/1.1/settings/%ff', '/consoles/%ff', '/settings%ff', '/oauth/authorizex/%ff']) {
      const answer = await t.app.inject({ method: 'GET', url })
      assert.equal(answer.statusCode, 400, url)
      assert.match(String(answer.headers['content-type']), /^application\/json/, url)
    }
  })
})
