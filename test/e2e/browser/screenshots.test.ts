// The screenshots the README shows (issues 3 and 14): the consent page signed out and signed in,
// the PIN page, OAuth 2.0's consent page, Connected apps and the console's app page, taken from the real pages at a 1000x800
// viewport. They are taken on every run (so a page that no longer renders fails here) but written
// to docs/screenshots only when LATCHKEY_UPDATE_SCREENSHOTS=1, so an ordinary run never changes
// the repository.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { setOAuth2Client } from '../../../src/domain/oauth2-user/clients.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { type TestServer } from '../../helpers/test-app.ts'
import { assertAccessible, newPerson, open, skipReason, submitWith } from './browser.ts'
import { exchange, getRequestToken, type CallbackSite } from './oauth.ts'
import { closeBrowserEnvironment, startBrowserEnvironment } from './environment.ts'

const SCREENSHOTS = join(import.meta.dirname, '..', '..', '..', 'docs', 'screenshots')
const isUpdating = process.env.LATCHKEY_UPDATE_SCREENSHOTS === '1'
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

async function screenshot(page: Page, name: string): Promise<void> {
  const image = await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide' })
  assert.deepEqual(image.subarray(0, 8), PNG_SIGNATURE, `${name} is a PNG`)
  if (!isUpdating) return
  mkdirSync(SCREENSHOTS, { recursive: true })
  writeFileSync(join(SCREENSHOTS, name), image)
}

describe('the README screenshots', { skip: skipReason }, () => {
  let server: TestServer
  let site: CallbackSite
  let browser: Browser

  before(async () => {
    ;({ browser, server, site } = await startBrowserEnvironment())
  })
  after(() => closeBrowserEnvironment({ browser, server, site }))

  test(`the consent page signed out and signed in, the PIN page, Connected apps, sessions, the console's app page and OAuth tool${isUpdating ? ' (written to docs/screenshots)' : ''}`, async () => {
    const owner = await makeUser(server.domain, { screenName: 'ada', name: 'Ada Lovelace' })
    const app = await makeApp(server.domain, {
      owner: owner.user,
      name: 'Birdwatch',
      description: 'Counts the birds in your timeline and posts a weekly summary.',
      website: 'https://birdwatch.example',
      callbackUrls: [site.registered],
    })
    const { user, password } = await makeUser(server.domain, { screenName: 'grace', name: 'Grace Hopper' })
    const page = await newPerson(browser)

    const web = await getRequestToken(server, app, site.registered)
    await open(page, `${server.url}/oauth/authorize?oauth_token=${web.token}`)
    await assertAccessible(page, 'the consent page, signed out')
    await screenshot(page, 'consent-signed-out.png')
    await page.fill('#username', user.screenName)
    await page.fill('#password', password)
    await submitWith(page, '#allow')
    assert.equal(new URL(page.url()).pathname, '/callback')
    // The app exchanges the verifier, so Grace has authorized it (Connected apps below lists it).
    const exchanged = await exchange(server, app, web, new URL(page.url()).searchParams.get('oauth_verifier') ?? '')
    assert.equal(exchanged.status, 200, exchanged.text)

    const oob = await getRequestToken(server, app, 'oob')
    await open(page, `${server.url}/oauth/authorize?oauth_token=${oob.token}`)
    assert.match(await page.locator('main').innerText(), /You are signed in as Grace Hopper \(@grace\)\./)
    await assertAccessible(page, 'the consent page, signed in')
    await screenshot(page, 'consent-signed-in.png')

    await submitWith(page, '#allow')
    assert.match(await page.locator('#oauth_pin').innerText(), /^\d{7}$/)
    await assertAccessible(page, 'the PIN page')
    await screenshot(page, 'pin.png')

    // OAuth 2.0 user context: the same page, listing what the asked scopes allow.
    const client = await setOAuth2Client(server.domain, { appId: app.id, setting: 'confidential' })
    const authorize = new URLSearchParams({
      response_type: 'code',
      client_id: client.client!.clientId,
      redirect_uri: site.registered,
      scope: 'tweet.read tweet.write users.read offline.access',
      state: 'screenshot',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })
    await open(page, `${server.url}/i/oauth2/authorize?${authorize}`)
    assert.match(await page.locator('main').innerText(), /Post and repost for you\./)
    await assertAccessible(page, 'the OAuth 2.0 consent page')
    await screenshot(page, 'oauth2-consent.png')

    // Grace has authorized Birdwatch: her Connected apps list it.
    await open(page, `${server.url}/settings/connected_apps`)
    assert.match(await page.locator(`[data-app-id="${app.id}"]`).innerText(), /Birdwatch/)
    await assertAccessible(page, 'connected apps')
    await screenshot(page, 'connected-apps.png')

    // Where she is signed in: this browser, named as a person reads it.
    await open(page, `${server.url}/settings/sessions`)
    assert.match(await page.locator('tbody').innerText(), /Chrom\w*( Headless)? on Linux \(this browser\)/)
    await assertAccessible(page, 'the sessions page')
    await screenshot(page, 'sessions.png')

    // Ada, Birdwatch's developer, on its page in the console.
    const developer = await newPerson(browser)
    await open(developer, `${server.url}/console/apps/${app.id}`)
    await developer.fill('#username', 'ada')
    await developer.fill('#password', owner.password)
    await submitWith(developer, '#sign_in')
    assert.equal(new URL(developer.url()).pathname, `/console/apps/${app.id}`)
    await assertAccessible(developer, "the console's app page")
    await screenshot(developer, 'console-app.png')

    // The OAuth tool signs a request of Birdwatch; Copy puts the curl command on the clipboard.
    await open(developer, `${server.url}/console/apps/${app.id}/oauth-tool`)
    await submitWith(developer, '#sign_request')
    const curl = await developer.locator('#curl_command').innerText()
    assert.match(curl, /^curl /)
    await developer.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
    await developer.click('button[data-copy="curl_command"]')
    await developer.locator('button[data-copy="curl_command"]', { hasText: 'Copied' }).waitFor()
    assert.equal(await developer.evaluate(() => navigator.clipboard.readText()), curl)
    await assertAccessible(developer, 'the OAuth tool')
    await screenshot(developer, 'oauth-tool.png')
  })
})
