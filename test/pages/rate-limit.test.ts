import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { makeApp } from '../helpers/fixtures.ts'
import { buildTestApp } from '../helpers/test-app.ts'
import { csrfOf, makeRequestToken, newBrowser, submit, visit } from './helpers.ts'

describe('the consent pages rate limit', () => {
  test('past the per-address limit, the page is a plain HTML 429 with x-rate-limit headers', async (ctx) => {
    const t = await buildTestApp({ settings: { rateLimits: { '/oauth/authorize': 2 } } })
    ctx.after(() => t.close())
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const browser = newBrowser('10.9.0.1')
    for (let i = 0; i < 2; i++) assert.equal((await visit(t.app, browser, `/oauth/authorize?oauth_token=${rt.token}`)).statusCode, 200)
    const limited = await visit(t.app, browser, `/oauth/authorize?oauth_token=${rt.token}`)
    assert.equal(limited.statusCode, 429)
    assert.equal(limited.headers['content-type'], 'text/html; charset=utf-8')
    assert.equal(limited.headers['x-rate-limit-limit'], '2')
    assert.match(limited.body, /Too many requests from your network\./)
    const elsewhere = await visit(t.app, newBrowser('10.9.0.2'), `/oauth/authorize?oauth_token=${rt.token}`)
    assert.equal(elsewhere.statusCode, 200, 'another address is not limited')
  })

  test('a form posted to the page counts against the same limit as opening it', async (ctx) => {
    const t = await buildTestApp({ settings: { rateLimits: { '/oauth/authenticate': 2 } } })
    ctx.after(() => t.close())
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const browser = newBrowser('10.9.0.3')
    const page = await visit(t.app, browser, `/oauth/authenticate?oauth_token=${rt.token}`)
    assert.equal(page.statusCode, 200)
    const fields = { csrf_token: csrfOf(page.body), oauth_token: rt.token, action: 'allow' }
    assert.equal((await submit(t.app, browser, '/oauth/authenticate', fields)).statusCode, 401, 'the second request: asked to sign in')
    const limited = await submit(t.app, browser, '/oauth/authenticate', fields)
    assert.equal(limited.statusCode, 429)
    assert.equal(limited.headers['x-rate-limit-remaining'], '0')
    assert.match(limited.body, /Too many requests from your network\./)
  })
})
