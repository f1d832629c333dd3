import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { makeApp } from '../helpers/fixtures.ts'
import { buildTestApp } from '../helpers/test-app.ts'
import { Browser, csrfOf } from '../helpers/browser.ts'
import { makeRequestToken } from '../helpers/consent-pages.ts'

describe('the consent pages rate limit', () => {
  test('past the per-address limit, the page is a plain HTML 429 with x-rate-limit headers', async (ctx) => {
    const t = await buildTestApp({ settings: { rateLimits: { '/oauth/authorize': 2 } } })
    ctx.after(() => t.close())
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const browser = new Browser(t.app, '10.9.0.1')
    for (let i = 0; i < 2; i++) assert.equal((await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)).statusCode, 200)
    const limited = await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
    assert.equal(limited.statusCode, 429)
    assert.equal(limited.headers['content-type'], 'text/html; charset=utf-8')
    assert.equal(limited.headers['x-rate-limit-limit'], '2')
    assert.match(limited.body, /Too many requests from your network\./)
    const elsewhere = await new Browser(t.app, '10.9.0.2').get(`/oauth/authorize?oauth_token=${rt.token}`)
    assert.equal(elsewhere.statusCode, 200, 'another address is not limited')
  })

  test('a form posted to the page counts against the same limit as opening it', async (ctx) => {
    const t = await buildTestApp({ settings: { rateLimits: { '/oauth/authenticate': 2 } } })
    ctx.after(() => t.close())
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const browser = new Browser(t.app, '10.9.0.3')
    const page = await browser.get(`/oauth/authenticate?oauth_token=${rt.token}`)
    assert.equal(page.statusCode, 200)
    const fields = { csrf_token: csrfOf(page.body), oauth_token: rt.token, action: 'allow' }
    assert.equal((await browser.post('/oauth/authenticate', fields)).statusCode, 401, 'the second request: asked to sign in')
    const limited = await browser.post('/oauth/authenticate', fields)
    assert.equal(limited.statusCode, 429)
    assert.equal(limited.headers['x-rate-limit-remaining'], '0')
    assert.match(limited.body, /Too many requests from your network\./)
  })
})
