// A person without a password (made by an OpenID Connect sign-in) confirms a sensitive console
// action by signing in again at their provider, which is asked to authenticate afresh.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { makeApp } from '../../helpers/fixtures.ts'
import { Browser, csrfOf, decodeEntities } from '../../helpers/browser.ts'
import { signInAtProvider } from '../../helpers/oidc-provider.ts'
import { providerEntry, signInThrough, startOidcWorld, type OidcWorld } from '../../helpers/oidc-setup.ts'
import { testClock } from '../../helpers/test-app.ts'

const STALE = 10 * 60_000 + 1000

describe('sudo for a person who signs in at a provider', () => {
  const clock = testClock()
  let w: OidcWorld
  before(async () => {
    w = await startOidcWorld((issuer) => [providerEntry('acme', issuer), providerEntry('unused', issuer)], { server: { clock } })
  })
  after(() => w.close())

  test('asked to sign in again at their own provider (prompt=login, max_age=0); then the action runs', async () => {
    w.accounts.set('sub-dev', { claims: { preferred_username: 'dev_person' } })
    const browser = new Browser()
    assert.equal((await signInThrough(browser, w.t.url, 'acme', 'sub-dev')).statusCode, 302)
    const link = await w.t.domain.stores.identityLinks.find('acme', 'sub-dev')
    const owner = (await w.t.domain.stores.users.findById(link!.userId))!
    const app = await makeApp(w.t.domain, { owner })
    clock.advance(STALE)

    const page = await browser.get(`${w.t.url}/console/apps/${app.id}`)
    const asked = await browser.post(`${w.t.url}/console/apps/${app.id}/keys`, { csrf_token: csrfOf(page.body) })
    assert.equal(asked.statusCode, 200)
    assert.match(asked.body, /Confirm it's you/)
    assert.doesNotMatch(asked.body, /sudo_password/, 'no password field: there is none')
    assert.doesNotMatch(asked.body, /confirm_with_unused/, 'only the providers the person is linked to')
    const href = decodeEntities(/id="confirm_with_acme" href="([^"]+)"/.exec(asked.body)![1]!)
    assert.equal((await w.t.domain.stores.apps.findById(app.id))?.consumerKey, app.consumerKey, 'nothing done yet')

    const start = await browser.get(new URL(href, w.t.url).href)
    const authorization = new URL(String(start.headers.location))
    assert.equal(authorization.searchParams.get('prompt'), 'login')
    assert.equal(authorization.searchParams.get('max_age'), '0')
    const back = await browser.get(await signInAtProvider(authorization.href, 'sub-dev'))
    assert.equal(back.headers.location, `/console/apps/${app.id}`)

    const again = await browser.get(`${w.t.url}/console/apps/${app.id}`)
    const done = await browser.post(`${w.t.url}/console/apps/${app.id}/keys`, { csrf_token: csrfOf(again.body) })
    assert.ok(done.statusCode === 200 || done.statusCode === 302, `answered ${done.statusCode}`)
    assert.notEqual((await w.t.domain.stores.apps.findById(app.id))?.consumerKey, app.consumerKey, 'regenerated')
  })

  test('a sign-in the provider may have answered from its own session is not fresh: a secret asks again at once', async () => {
    w.accounts.set('sub-left', { claims: { preferred_username: 'left_browser' } })
    const browser = new Browser()
    assert.equal((await signInThrough(browser, w.t.url, 'acme', 'sub-left')).statusCode, 302)
    const link = await w.t.domain.stores.identityLinks.find('acme', 'sub-left')
    const app = await makeApp(w.t.domain, { owner: (await w.t.domain.stores.users.findById(link!.userId))! })
    const page = await browser.get(`${w.t.url}/console/apps/${app.id}`)
    const asked = await browser.post(`${w.t.url}/console/apps/${app.id}/keys`, { csrf_token: csrfOf(page.body) })
    assert.match(asked.body, /Confirm it's you/)
    assert.equal((await w.t.domain.stores.apps.findById(app.id))?.consumerKey, app.consumerKey, 'nothing done')
  })
})
