import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { HttpSettings } from '../../src/app.ts'
import type { HomeSettings } from '../../src/pages/home-routes.ts'
import { buildTestApp } from '../helpers/test-app.ts'
import { textOf } from '../helpers/browser.ts'

const DEMO = { screenName: 'demo', password: 'pw <&> "quoted"', appId: '1234', consumerKey: 'ck_demo', consumerSecret: 'cs_demo' }
const home = (demo = DEMO): HomeSettings => ({ demo: () => demo, adminUrl: () => 'http://127.0.0.1:9091' })

const app = (http: Partial<HttpSettings>) => buildTestApp({ http })

describe('the front door', () => {
  test('GET / names the service and links to the console, connected apps, both OpenAPI documents and the docs', async (ctx) => {
    // Production: HTTPS, here as a trusted proxy reports it.
    const t = await app({ home: home(), dev: false, trustProxy: ['127.0.0.1'] })
    ctx.after(() => t.close())
    const https = { 'x-forwarded-proto': 'https' }
    const page = await t.app.inject({ method: 'GET', url: '/', headers: https })
    assert.equal(page.statusCode, 200)
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(page.body, /<h1>Latchkey<\/h1>/)
    assert.match(page.body, /<title>Latchkey<\/title>/)
    assert.match(page.body, /<main class="wide">/)
    assert.match(page.body, /<script>[^<]+<\/script>/, 'the Copy buttons work')
    for (const [id, href] of [
      ['console', '/console'],
      ['connected_apps', '/settings/connected_apps'],
      ['public_openapi', '/openapi.json'],
      ['docs', '/docs/'],
    ]) {
      assert.match(page.body, new RegExp(`<a href="${href}" id="${id}">`), id)
    }
    // Outside development, never the demo, whatever the database holds.
    assert.doesNotMatch(page.body, /ck_demo|try_it|pin_command/)
    // Nor the admin listener's address, an internal one: only where the admin document is served.
    assert.doesNotMatch(page.body, /9091|127\.0\.0\.1/)
    assert.match(page.body, /the admin API's, on the admin listener at <code>\/admin\/v1\/openapi\.json<\/code>/)
    // Every link of the page answers: none leads off this service.
    assert.deepEqual([...page.body.matchAll(/href="([^"]+)"/g)].map(([, href]) => href).filter((href) => !href!.startsWith('/')), [])
    for (const path of ['/console', '/settings/connected_apps', '/openapi.json', '/docs/']) {
      const linked = await t.app.inject({ method: 'GET', url: path, headers: https })
      assert.ok(linked.statusCode < 400, `${path}: ${linked.statusCode}`)
    }
  })

  test('in development it shows the demo sign-in and paste-ready commands for this origin, escaped', async (ctx) => {
    const t = await app({ home: home(), dev: true, publicUrl: new URL('https://auth.example:8443') })
    ctx.after(() => t.close())
    const page = await t.app.inject({ method: 'GET', url: '/' })
    assert.equal(page.statusCode, 200)
    assert.equal(textOf(page.body, 'demo_screen_name'), 'demo')
    assert.equal(textOf(page.body, 'demo_password'), DEMO.password)
    assert.doesNotMatch(page.body, /pw <&>/, 'the password is HTML-escaped')
    assert.equal(textOf(page.body, 'pin_command'), 'node examples/pin-flow.mjs https://auth.example:8443 ck_demo cs_demo')
    assert.match(textOf(page.body, 'bearer_command')!, /^TOKEN=\$\(curl -s -u 'ck_demo:cs_demo' --data grant_type=client_credentials https:\/\/auth\.example:8443\/oauth2\/token /)
    assert.equal(
      textOf(page.body, 'bearer_command')!.split('\n')[1],
      'curl -H "Authorization: Bearer $TOKEN" https://auth.example:8443/1.1/application/rate_limit_status.json',
      'the call with the token, on its own line',
    )
    assert.match(page.body, /<a href="\/console\/apps\/1234\/oauth-tool" id="oauth_tool">/)
    assert.equal(textOf(page.body, 'admin_openapi'), 'http://127.0.0.1:9091/admin/v1/openapi.json', 'in development the admin listener (this machine) is named')
    assert.doesNotMatch(page.body, /href="http:\/\/127\.0\.0\.1:9091/, 'named, never linked')
  })

  test('in development without a demo (not the first start on this database) there is no demo section', async (ctx) => {
    const t = await app({ home: { demo: () => undefined, adminUrl: () => undefined }, dev: true })
    ctx.after(() => t.close())
    const page = await t.app.inject({ method: 'GET', url: '/' })
    assert.equal(page.statusCode, 200)
    assert.doesNotMatch(page.body, /try_it|pin_command/)
    assert.doesNotMatch(page.body, /id="admin_openapi"/, 'no admin listener, no address for it')
    assert.match(page.body, /the admin API's, on the admin listener at <code>\/admin\/v1\/openapi\.json<\/code>/)
  })

  test('--home off: / and /docs/ are unknown paths of the API (404, code 34)', async (ctx) => {
    const t = await app({ home: undefined })
    ctx.after(() => t.close())
    for (const url of ['/', '/docs/', '/docs/testing.md']) {
      const answer = await t.app.inject({ method: 'GET', url })
      assert.equal(answer.statusCode, 404, url)
      assert.deepEqual(answer.json(), { errors: [{ code: 34, message: 'Sorry, that page does not exist' }] }, url)
    }
  })
})
