import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Browser } from '../../helpers/browser.ts'
import { listenProviderHost, signInAtProvider, type ProviderHost } from '../../helpers/oidc-provider.ts'
import { CLIENT, providerEntry, startOidcWorld, startSignIn, type OidcWorld } from '../../helpers/oidc-setup.ts'

/**
 * Answers that come from somewhere else than the sign-in asked: another provider (same client id
 * and secret, another issuer) or another client of the same provider. Both are real
 * node-oidc-provider instances; nothing is forged by hand.
 */
describe('OpenID Connect answers from another issuer or for another client', () => {
  let w: OidcWorld
  let other: ProviderHost
  before(async () => {
    w = await startOidcWorld((issuer) => [providerEntry('acme', issuer)], { otherClientIds: ['someone-else'] })
    other = await listenProviderHost()
    other.serve({ clients: [{ ...CLIENT, redirectUris: [`${w.t.url}/login/oidc/acme/callback`] }], accounts: w.accounts })
    w.accounts.set('sub-max', { claims: { preferred_username: 'max' } })
  })
  after(async () => {
    await w.close()
    await other.close()
  })

  test('a code and ID token from another issuer, brought back with the right state, are refused (1125)', async () => {
    const browser = new Browser()
    const authorization = await startSignIn(browser, w.t.url, 'acme')
    const atOther = new URL(authorization.pathname + authorization.search, other.issuer)
    const answer = await browser.get(await signInAtProvider(atOther.href, 'sub-max'))
    assert.equal(answer.statusCode, 400)
    assert.match(answer.body, /The sign-in at Acme acme did not succeed/)
    assert.equal(await w.t.domain.stores.identityLinks.find('acme', 'sub-max'), undefined)
  })

  test("a code issued to another client of the same provider is refused (1125), and the right one works", async () => {
    const browser = new Browser()
    const authorization = await startSignIn(browser, w.t.url, 'acme')
    authorization.searchParams.set('client_id', 'someone-else')
    const answer = await browser.get(await signInAtProvider(authorization.href, 'sub-max'))
    assert.equal(answer.statusCode, 400)
    assert.equal(await w.t.domain.stores.identityLinks.find('acme', 'sub-max'), undefined)
    const right = await startSignIn(browser, w.t.url, 'acme')
    assert.equal((await browser.get(await signInAtProvider(right.href, 'sub-max'))).statusCode, 302)
  })
})
