import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Browser } from '../../helpers/browser.ts'
import { listenProviderHost, type ProviderHost } from '../../helpers/oidc-provider.ts'
import { CLIENT, providerEntry } from '../../helpers/oidc-setup.ts'
import { startTestServer, type TestServer } from '../../helpers/test-app.ts'

describe("an OpenID Connect provider's discovery", () => {
  let host: ProviderHost
  let t: TestServer
  before(async () => {
    host = await listenProviderHost()
    t = await startTestServer({ http: { oidcProviders: [providerEntry('late', host.issuer)], signIn: { password: true, methods: [] } } })
  })
  after(async () => {
    await t.close()
    await host.close()
  })

  test('a provider not answering yet gives a plain 502 page (1126); once it answers, the next sign-in starts', async () => {
    const browser = new Browser()
    const down = await browser.get(`${t.url}/login/oidc/late?return_to=%2Fconsole`)
    assert.equal(down.statusCode, 502)
    assert.match(down.body, /The sign-in provider cannot be reached right now/)
    host.serve({ clients: [{ ...CLIENT, redirectUris: [`${t.url}/login/oidc/late/callback`] }] })
    const up = await browser.get(`${t.url}/login/oidc/late?return_to=%2Fconsole`)
    assert.equal(up.statusCode, 302)
    const location = new URL(String(up.headers.location))
    assert.equal(location.origin, host.issuer)
    assert.equal(location.searchParams.get('code_challenge_method'), 'S256')
    assert.equal(location.searchParams.get('redirect_uri'), `${t.url}/login/oidc/late/callback`)
    assert.ok(location.searchParams.get('nonce'))
  })

  test('an unknown provider id is a plain 404 page (1127)', async () => {
    const answer = await new Browser().get(`${t.url}/login/oidc/nobody?return_to=%2Fconsole`)
    assert.equal(answer.statusCode, 404)
    assert.match(answer.body, /This way of signing in is not offered here/)
  })

  test("the routes count against the console's per-address page limit (300): past it, a plain 429 page", async () => {
    const browser = new Browser()
    let status = 0
    let count = 0
    // Starts that succeed (302 to the provider): only the page limit can stop them.
    while (count < 400 && status !== 429) {
      status = (await browser.get(`${t.url}/login/oidc/late?return_to=%2Fconsole`)).statusCode
      count += 1
      if (status !== 429) assert.equal(status, 302)
    }
    assert.equal(status, 429)
    assert.ok(count > 290 && count <= 301, `limited after ${count} requests`)
  })
})
