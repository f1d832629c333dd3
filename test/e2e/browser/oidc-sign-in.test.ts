// "Sign in with …" an OpenID Connect provider in Chromium (issue 50): a real node-oidc-provider's
// login page, from an OAuth 1.0a consent page, an OAuth 2.0 consent page and the console.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { makeApp } from '../../helpers/fixtures.ts'
import { listenProviderHost, type ProviderAccount, type ProviderHost } from '../../helpers/oidc-provider.ts'
import { CLIENT, providerEntry } from '../../helpers/oidc-setup.ts'
import { setOAuth2Client } from '../../../src/domain/oauth2-user/clients.ts'
import { authorizeParameters, newVerifier } from '../../helpers/oauth2-user.ts'
import { startTestServer, type TestServer } from '../../helpers/test-app.ts'
import { launchBrowser, mainText, newPerson, open, skipReason, submitWith } from './browser.ts'
import { CALLBACK_PAGE_TEXT, exchangeAndVerify, getRequestToken, startCallbackSite, type CallbackSite } from './oauth.ts'

describe('Sign in with an OpenID Connect provider, in Chromium', { skip: skipReason }, () => {
  let browser: Browser
  let host: ProviderHost
  let server: TestServer
  let site: CallbackSite
  const accounts = new Map<string, ProviderAccount>()

  before(async () => {
    browser = await launchBrowser()
    host = await listenProviderHost()
    const entry = providerEntry('acme', host.issuer, { displayName: 'Acme SSO' })
    server = await startTestServer({ http: { oidcProviders: [entry], signIn: { password: true, methods: [{ kind: 'oidc', id: 'acme', label: 'Acme SSO' }] } } })
    host.serve({ clients: [{ ...CLIENT, redirectUris: [`${server.url}/login/oidc/acme/callback`] }], accounts })
    site = await startCallbackSite()
  })
  after(async () => {
    await browser?.close()
    await site?.close()
    await server?.close()
    await host?.close()
  })

  /** On the provider's login page: signs in as `login` (its development page takes any password). */
  async function signInAtProvider(page: Page, login: string) {
    assert.equal(new URL(page.url()).origin, host.issuer, 'the browser is at the provider')
    await page.fill('input[name=login]', login)
    await page.fill('input[name=password]', 'any')
    return submitWith(page, 'button.login-submit')
  }

  test('from an OAuth 1.0a consent page: the screen name is the login hint, and the app gets a working access token', async () => {
    accounts.set('sub-web1', { claims: { preferred_username: 'web_one', name: 'Web One' } })
    const app = await makeApp(server.domain, { name: 'Photo Printer', callbackUrls: [site.registered] })
    const rt = await getRequestToken(server, app, `${site.registered}?state=oidc`)
    const page = await newPerson(browser)
    await open(page, `${server.url}/oauth/authorize?oauth_token=${rt.token}&screen_name=web_one`)
    await submitWith(page, '#sign_in_with_acme')
    assert.equal(await page.inputValue('input[name=login]'), 'web_one', 'screen_name became login_hint')
    await signInAtProvider(page, 'sub-web1')
    assert.match(await mainText(page), /@web_one/, 'back on the consent page, signed in')
    const signedIn = (await server.domain.stores.audit.list({ appId: app.id })).find((event) => event.event === 'sign_in.succeeded')
    assert.equal(signedIn?.detail?.method, 'acme', "audited with the provider and the consent page's app")
    await submitWith(page, '#allow')
    assert.match(await mainText(page), new RegExp(CALLBACK_PAGE_TEXT))
    const landed = new URL(page.url())
    const access = await exchangeAndVerify(server, app, rt, landed.searchParams.get('oauth_verifier') ?? '')
    assert.equal(access.screenName, 'web_one')
  })

  test('from an OAuth 2.0 consent page: back to it signed in, and Authorize sends the code to the client', async () => {
    accounts.set('sub-web2', { claims: { preferred_username: 'web_two' } })
    const app = await makeApp(server.domain, { callbackUrls: [site.registered], accessLevel: 'read-write' })
    const { client } = await setOAuth2Client(server.domain, { appId: app.id, setting: 'public' })
    const page = await newPerson(browser)
    const parameters = { ...authorizeParameters({ app, clientId: client!.clientId, clientSecret: undefined }, newVerifier(), 'tweet.read users.read'), redirect_uri: site.registered }
    await open(page, `${server.url}/i/oauth2/authorize?${new URLSearchParams(parameters)}`)
    await submitWith(page, '#sign_in_with_acme')
    await signInAtProvider(page, 'sub-web2')
    assert.match(await mainText(page), /@web_two/)
    await submitWith(page, '#allow')
    assert.match(await mainText(page), new RegExp(CALLBACK_PAGE_TEXT))
    const landed = new URL(page.url())
    assert.ok(landed.searchParams.get('code'))
  })

  test('from the console: signed in on the console, as the person the provider named', async () => {
    accounts.set('sub-web3', { claims: { preferred_username: 'web_three', name: 'Web Three' } })
    const page = await newPerson(browser)
    await open(page, `${server.url}/console`)
    await submitWith(page, '#sign_in_with_acme')
    await signInAtProvider(page, 'sub-web3')
    assert.equal(new URL(page.url()).pathname, '/console')
    assert.match(await mainText(page), /Sign out @web_three/)
  })
})
