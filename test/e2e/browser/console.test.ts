// Issue 14, "tests that must exist": a new developer signs up in a real browser, creates a web app,
// reads its credentials from the page, and the unmodified npm `oauth` client completes the
// three-legged flow with them through the consent page; the person then revokes the app on
// Connected apps and the client's next call gets 401 code 89. Every console and settings page is
// checked with axe-core; a second developer gets 404 for the first one's app.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import oauthPkg from 'oauth'
import type { Browser, Page } from 'playwright-core'
import type { TestServer } from '../../helpers/test-app.ts'
import { VIEWPORT, assertAccessible, mainText, newPerson, open, skipReason, submitWith } from './browser.ts'
import { closeBrowserEnvironment, startBrowserEnvironment } from './environment.ts'
import type { CallbackSite } from './oauth.ts'

function requestToken(client: oauthPkg.OAuth): Promise<{ token: string; secret: string }> {
  return new Promise((resolve, reject) => {
    client.getOAuthRequestToken((error, token, secret) => (error ? reject(new Error(JSON.stringify(error))) : resolve({ token, secret })))
  })
}

function accessToken(client: oauthPkg.OAuth, token: string, secret: string, verifier: string): Promise<{ token: string; secret: string }> {
  return new Promise((resolve, reject) => {
    client.getOAuthAccessToken(token, secret, verifier, (error, at, ats) => (error ? reject(new Error(JSON.stringify(error))) : resolve({ token: at, secret: ats })))
  })
}

function verifyCredentials(client: oauthPkg.OAuth, url: string, token: string, secret: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    client.get(`${url}/1.1/account/verify_credentials.json`, token, secret, (error, data, response) => {
      if (!response) return reject(new Error(`no response: ${JSON.stringify(error)}`))
      resolve({ status: response.statusCode ?? 0, body: String(data ?? '') })
    })
  })
}

let counter = 0
const screenName = (prefix: string) => `${prefix}${Date.now() % 100_000}${++counter}`

async function signUp(page: Page, server: TestServer, name: string): Promise<string> {
  const handle = screenName(name.toLowerCase().replace(/[^a-z]/g, '').slice(0, 5))
  await open(page, `${server.url}/console/signup`)
  await page.fill('input[name="screen_name"]', handle)
  await page.fill('input[name="name"]', name)
  await page.fill('input[name="password"]', 'correct horse battery')
  await submitWith(page, '#sign_up')
  assert.equal(new URL(page.url()).pathname, '/console')
  return handle
}

async function createApp(page: Page, server: TestServer, callback: string): Promise<string> {
  await open(page, `${server.url}/console/apps/new`)
  await page.fill('input[name="name"]', `Birdwatch ${++counter}`)
  await page.fill('textarea[name="description"]', 'Counts the birds in your timeline.')
  await page.fill('input[name="website"]', 'https://birdwatch.example')
  await page.fill('textarea[name="callbacks"]', callback)
  await page.selectOption('select[name="type"]', 'web')
  await page.selectOption('select[name="access_level"]', 'read-write')
  await page.check('input[name="sign_in"]')
  await submitWith(page, '#create_app')
  const id = /^\/console\/apps\/(\d+)$/.exec(new URL(page.url()).pathname)?.[1]
  assert.ok(id, `after creation the browser is on the app's page, not ${page.url()}`)
  return id
}

describe('the developer console and connected apps in a real browser', { skip: skipReason }, () => {
  let server: TestServer
  let site: CallbackSite
  let browser: Browser

  before(async () => {
    ;({ browser, server, site } = await startBrowserEnvironment({ http: { allowSignup: true } }))
  })
  after(() => closeBrowserEnvironment({ browser, server, site }))

  test('sign up, create an app, the npm oauth client completes the flow through the consent page, then revoke: 401 code 89', async () => {
    const page = await newPerson(browser)
    await open(page, `${server.url}/console`)
    await assertAccessible(page, 'the console sign-in page')
    await open(page, `${server.url}/console/signup`)
    await assertAccessible(page, 'the sign-up page')
    await page.fill('input[name="screen_name"]', 'not valid!')
    await page.fill('input[name="name"]', 'Grace Hopper')
    await page.fill('input[name="password"]', 'correct horse battery')
    const refused = await submitWith(page, '#sign_up')
    assert.equal(refused.status(), 400)
    assert.match(await mainText(page), /screen name must be 1 to 15 letters/)
    await assertAccessible(page, 'the sign-up page with a form error')

    const handle = await signUp(page, server, 'Grace Hopper')
    await assertAccessible(page, 'the app list, empty')
    await open(page, `${server.url}/console/apps/new`)
    await assertAccessible(page, 'the new app form')
    await page.fill('input[name="name"]', 'x')
    await page.fill('textarea[name="callbacks"]', 'javascript:alert(1)')
    await submitWith(page, '#create_app')
    await assertAccessible(page, 'the new app form with an error')
    assert.match(await mainText(page), /callback/i)

    const appId = await createApp(page, server, site.registered)
    await assertAccessible(page, "the app's page after creation")
    const key = (await page.textContent('#consumer_key'))?.trim() ?? ''
    const secret = (await page.textContent('#consumer_secret'))?.trim() ?? ''
    assert.match(key, /^[A-Za-z0-9]{25}$/)
    assert.match(secret, /^[A-Za-z0-9]{50}$/)
    assert.match(await mainText(page), /not shown again/)
    await page.reload()
    assert.equal(await page.locator('#consumer_secret').count(), 0, 'the secret is shown once')

    // The app's own side: the npm `oauth` library, as its README uses it, with what the page showed.
    const client = new oauthPkg.OAuth(`${server.url}/oauth/request_token`, `${server.url}/oauth/access_token`, key, secret, '1.0A', site.registered, 'HMAC-SHA1')
    const rt = await requestToken(client)
    await open(page, `${server.url}/oauth/authorize?oauth_token=${rt.token}`)
    assert.match(await mainText(page), new RegExp(`You are signed in as Grace Hopper \\(@${handle}\\)`), 'the console session carries to the consent page')
    await submitWith(page, '#allow')
    const landed = new URL(page.url())
    assert.equal(landed.pathname, '/callback')
    const verifier = landed.searchParams.get('oauth_verifier') ?? ''
    const access = await accessToken(client, rt.token, rt.secret, verifier)
    const before = await verifyCredentials(client, server.url, access.token, access.secret)
    assert.equal(before.status, 200, before.body)
    assert.equal(JSON.parse(before.body).screen_name, handle)

    await open(page, `${server.url}/oauth/authorize?oauth_token=${(await requestToken(client)).token}&force_login=true`)
    await page.click('text=Manage the apps you\'ve connected')
    await page.waitForURL(`${server.url}/settings/connected_apps`)
    await assertAccessible(page, 'connected apps')
    const entry = page.locator(`[data-app-id="${appId}"]`)
    assert.match((await entry.innerText()).replace(/\s+/g, ' '), /Birdwatch \d+ By Grace Hopper/)
    await Promise.all([page.waitForNavigation(), entry.locator('button[name="revoke"]').click()])
    assert.equal(await page.locator(`[data-app-id="${appId}"]`).count(), 0)
    await assertAccessible(page, 'connected apps, empty')

    const afterwards = await verifyCredentials(client, server.url, access.token, access.secret)
    assert.equal(afterwards.status, 401)
    assert.equal(JSON.parse(afterwards.body).errors[0].code, 89)
  })

  test('with JavaScript off a developer signs up, creates an app, edits and deletes it', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, javaScriptEnabled: false })
    const page = await context.newPage()
    await signUp(page, server, 'Ada Lovelace')
    const appId = await createApp(page, server, site.registered)
    assert.match((await page.textContent('#consumer_secret')) ?? '', /^[A-Za-z0-9]{50}$/)
    await page.fill(`form[action="/console/apps/${appId}"] input[name="name"]`, 'Renamed by Ada')
    await submitWith(page, '#save_app')
    assert.match(await mainText(page), /Saved\./)
    await submitWith(page, '#suspend_app')
    assert.match(await mainText(page), /Suspended/)
    await page.click(`a[href="/console/apps/${appId}/delete"]`)
    await page.waitForURL(`${server.url}/console/apps/${appId}/delete`)
    await submitWith(page, '#confirm_delete')
    assert.equal(new URL(page.url()).pathname, '/console')
    assert.match(await mainText(page), /You have no apps yet/)
    await context.close()
  })

  test('every page the console and settings render, in each state it shows, passes axe-core with every rule', async () => {
    const page = await newPerson(browser)
    const checked: string[] = []
    const check = async (what: string) => {
      await assertAccessible(page, what)
      checked.push(new URL(page.url()).pathname.replace(/\/apps\/\d+/, '/apps/:id'))
    }
    await open(page, `${server.url}/console`)
    await page.fill('#username', 'nobody_here')
    await page.fill('#password', 'not the password')
    assert.equal((await submitWith(page, '#sign_in')).status(), 401)
    await check('the sign-in page with a refusal')
    await signUp(page, server, 'Edsger Dijkstra')
    const appId = await createApp(page, server, site.registered)
    await check("the app's page showing the new secret")
    const appPage = `${server.url}/console/apps/${appId}`
    await open(page, `${server.url}/console`)
    await check('the list of apps')
    await open(page, appPage)
    await check("the app's page")
    await page.fill(`form[action="/console/apps/${appId}"] textarea[name="callbacks"]`, 'javascript:alert(1)')
    assert.equal((await submitWith(page, '#save_app')).status(), 400)
    await check("the app's page with a form error")
    for (const [button, what] of [
      ['#generate_access_token', 'the access token shown'],
      ['#get_bearer_token', 'the bearer token shown'],
      ['#invalidate_bearer_token', 'a message'],
      ['#suspend_app', 'the app suspended'],
    ]) {
      await submitWith(page, button!)
      await check(`the app's page with ${what}`)
    }
    await page.selectOption('#oauth2', 'confidential')
    await submitWith(page, '#save_oauth2')
    await check("the app's page with the OAuth 2.0 client secret shown")
    await open(page, `${appPage}/delete`)
    await check('the delete confirmation')

    await open(page, `${appPage}/failures`)
    await check('the signature failures page, empty')
    const key = (await server.domain.stores.apps.findById(appId))?.consumerKey ?? ''
    const unsigned = `OAuth oauth_consumer_key="${key}", oauth_nonce="axe${Date.now()}", oauth_signature="bad", oauth_signature_method="HMAC-SHA1", oauth_timestamp="${Math.floor(Date.now() / 1000)}", oauth_version="1.0"`
    assert.equal((await fetch(`${server.url}/1.1/account/verify_credentials.json`, { headers: { authorization: unsigned } })).status, 401)
    await server.domain.signatureFailures?.settled()
    await open(page, `${appPage}/failures`)
    assert.match(await mainText(page), /The app is suspended \(app_suspended\)/, "the refusal listed (the app was suspended above)")
    await check('the signature failures page with a failure')

    await open(page, `${appPage}/oauth-tool`)
    await check('the OAuth tool')
    await submitWith(page, '#sign_request')
    await check('the OAuth tool with a signed request')
    await page.fill('#url', 'http://x')
    await page.fill('#parameters', 'oauth_nonce=mine')
    await submitWith(page, '#sign_request')
    await check('the OAuth tool with an error')

    for (const [path, what] of [
      ['/settings/connected_apps', 'connected apps, none'],
      ['/settings/sessions', 'the sessions page'],
      ['/settings/password', 'the password page'],
    ]) {
      await open(page, `${server.url}${path}`)
      await check(what!)
    }
    await page.fill('#current_password', 'not the password')
    await page.fill('#new_password', 'a new horse battery')
    await submitWith(page, '#change_password')
    await check('the password page with a refusal')
    await page.fill('#current_password', 'correct horse battery')
    await page.fill('#new_password', 'a new horse battery')
    await submitWith(page, '#change_password')
    await check('the password page, changed')
    // Every address the console and settings answer with a page of their own, each checked above (the
    // sign-up page and the 404 page in the tests around this one; the password confirmation in sessions.test.ts).
    assert.deepEqual([...new Set(checked)].sort(), [
      '/console',
      '/console/apps/:id',
      '/console/apps/:id/bearer-token',
      '/console/apps/:id/bearer-token/invalidate',
      '/console/apps/:id/delete',
      '/console/apps/:id/failures',
      '/console/apps/:id/oauth-tool',
      '/console/apps/:id/oauth2',
      '/console/apps/:id/owner-token',
      '/console/sign-in',
      '/settings/connected_apps',
      '/settings/password',
      '/settings/sessions',
    ])
  })

  /** The lines a browser laid out each cell of the usage table in, read from where it put each character. */
  const usageLines = (page: Page) =>
    page.locator('section[aria-labelledby="usage"] td').evaluateAll((cells) =>
      cells.map((cell) => {
        const characters: Array<[string, number]> = []
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT)
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? ''
          for (let i = 0; i < text.length; i++) {
            const range = document.createRange()
            range.setStart(node, i)
            range.setEnd(node, i + 1)
            characters.push([text.charAt(i), Math.round(range.getBoundingClientRect().top)])
          }
        }
        const lines: string[] = []
        characters.forEach(([char, top], i) => {
          if (i === 0 || top !== characters[i - 1]?.[1]) lines.push(char)
          else lines.push(`${lines.pop() ?? ''}${char}`)
        })
        return lines
      }),
    )

  for (const viewport of [{ width: 360, height: 740 }, VIEWPORT]) {
    test(`the app's page ${viewport.width} pixels wide: each part is reached from the contents at the top; the usage table breaks no word (an endpoint only before a slash)`, async () => {
      const context = await browser.newContext({ viewport, deviceScaleFactor: 1 })
      const page = await context.newPage()
      await signUp(page, server, 'Barbara Liskov')
      const appId = await createApp(page, server, site.registered)
      await open(page, `${server.url}/console/apps/${appId}`)
      const contents = page.locator('nav[aria-label="On this page"] a')
      assert.deepEqual(await contents.allInnerTexts(), ['Keys and tokens', 'Settings', 'User authentication settings', 'Usage', 'Signature failures', 'Suspend or delete'])
      for (const link of await contents.all()) {
        const name = await link.innerText()
        await link.click()
        assert.equal(await page.locator('h2:target').innerText(), name, `${name} leads to its part`)
      }
      const cells = await usageLines(page)
      assert.ok(cells.some((lines) => lines.length > 1), 'at this width some cells wrap')
      for (const lines of cells) {
        lines.slice(1).forEach((line, i) => assert.ok(/^[\s/]/.test(line) || /\s$/.test(lines[i]!), `${lines.join('|')} breaks at a space or before a slash`))
      }
      await context.close()
    })
  }

  test("developer B opens developer A's app pages: 404, nothing of A's app shown", async () => {
    const a = await newPerson(browser)
    await signUp(a, server, 'Alice')
    const appId = await createApp(a, server, site.registered)
    const b = await newPerson(browser)
    await signUp(b, server, 'Bob')
    for (const path of [`/console/apps/${appId}`, `/console/apps/${appId}/delete`]) {
      const response = await open(b, `${server.url}${path}`)
      assert.equal(response.status(), 404, path)
      assert.doesNotMatch(await mainText(b), /Birdwatch/)
    }
    await assertAccessible(b, 'the 404 page')
  })
})
