import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { buildTestApp, type TestApp } from '../helpers/test-app.ts'
import { Browser, SESSION_COOKIE } from '../helpers/browser.ts'
import { makeRequestToken, openAndAllow } from '../helpers/consent-pages.ts'

describe('GET /oauth/authorize: the consent page', () => {
  let t: TestApp
  before(async () => {
    t = await buildTestApp()
  })
  after(() => t.close())

  async function pageFor(settings: Parameters<typeof makeApp>[1] = {}, query = '') {
    const { user: owner } = await makeUser(t.domain, { name: 'Olive Owner' })
    const app = await makeApp(t.domain, { owner, ...settings })
    const rt = await makeRequestToken(t.domain, app)
    const browser = new Browser(t.app)
    const response = await browser.get(`/oauth/authorize?oauth_token=${rt.token}${query}`)
    return { response, page: response.body, owner, app, rt, browser }
  }

  test('names the app, its description, website and owner, and what it can and cannot do', async () => {
    const { response, page, owner } = await pageFor({
      name: 'Photo Printer',
      description: 'Prints your photos.',
      website: 'https://printer.example/',
      accessLevel: 'read',
    })
    assert.equal(response.statusCode, 200)
    assert.match(page, /<h1>Authorize Photo Printer to use your account\?<\/h1>/)
    assert.match(page, /Prints your photos\./)
    assert.match(page, /<a href="https:\/\/printer\.example\/" rel="noopener noreferrer nofollow">/)
    assert.ok(page.includes(`Olive Owner (@${owner.screenName})`))
    assert.match(page, /This app will be able to:.*See your profile/s)
    assert.match(page, /It will not be able to:.*Read or send your direct messages\./s)
  })

  test('lists direct messages among what a read-write-directmessages app can do', async () => {
    const { page } = await pageFor({ accessLevel: 'read-write-directmessages' })
    const can = page.slice(page.indexOf('will be able to'), page.indexOf('will not be able to'))
    assert.match(can, /Read and send your direct messages\./)
    assert.match(can, /Post and delete posts for you\./)
  })

  test('signed out, asks for username and password with labels, and shows Authorize app and Cancel', async () => {
    const { page } = await pageFor()
    assert.match(page, /<html lang="en">/)
    assert.match(page, /<label for="username">Username<\/label>\s*<input id="username" name="username"/)
    assert.match(page, /<label for="password">Password<\/label>\s*<input id="password" name="password" type="password"/)
    assert.match(page, /<button[^>]*id="allow"[^>]*>Authorize app<\/button>/)
    assert.match(page, /<button[^>]*id="cancel"[^>]*>Cancel<\/button>/)
    assert.doesNotMatch(page, /<script/i)
  })

  test('screen_name prefills the username', async () => {
    const { page } = await pageFor({}, '&screen_name=ada_l')
    assert.match(page, /name="username" type="text" value="ada_l"/)
  })

  test('signed in, says who is signed in, shows the same buttons and a way to switch account', async () => {
    const { user, password } = await makeUser(t.domain, { name: 'Ada Lovelace' })
    const app = await makeApp(t.domain)
    const browser = new Browser(t.app)
    await openAndAllow(browser, '/oauth/authorize', (await makeRequestToken(t.domain, app)).token, {
      username: user.screenName,
      password,
    })
    const rt = await makeRequestToken(t.domain, app)
    const page = (await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)).body
    assert.ok(page.includes(`You are signed in as <strong>Ada Lovelace</strong> (@${user.screenName})`))
    assert.doesNotMatch(page, /name="password"/)
    assert.match(page, /id="allow"/)
    assert.match(page, /id="cancel"/)
    assert.match(page, /value="switch"[^>]*>Sign in with another account</)
  })

  test('force_login=true asks for the password even when someone is signed in', async () => {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain)
    const browser = new Browser(t.app)
    await openAndAllow(browser, '/oauth/authorize', (await makeRequestToken(t.domain, app)).token, {
      username: user.screenName,
      password,
    })
    const rt = await makeRequestToken(t.domain, app)
    const page = (await browser.get(`/oauth/authorize?oauth_token=${rt.token}&force_login=true`)).body
    assert.match(page, /name="password"/)
    assert.doesNotMatch(page, /You are signed in as/)
  })

  test('force_login is on for true and 1 in any case, and off for anything else', async () => {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain)
    const browser = new Browser(t.app)
    await openAndAllow(browser, '/oauth/authorize', (await makeRequestToken(t.domain, app)).token, { username: user.screenName, password })
    const rt = await makeRequestToken(t.domain, app)
    const forced = async (value: string) => /name="password"/.test((await browser.get(`/oauth/authorize?oauth_token=${rt.token}&force_login=${value}`)).body)
    for (const value of ['true', 'TRUE', 'True', '1']) assert.equal(await forced(value), true, value)
    for (const value of ['false', '0', 'yes', 'truex', 'xtrue', '11', '10', '']) assert.equal(await forced(value), false, value)
  })

  test('screen_name prefills at most 64 characters; without it the username is empty', async () => {
    const { page } = await pageFor({}, `&screen_name=${'s'.repeat(80)}`)
    assert.match(page, new RegExp(`name="username" type="text" value="${'s'.repeat(64)}"`))
    const bare = await pageFor()
    assert.match(bare.page, /name="username" type="text" value=""/)
  })

  test('an oauth_callback sent to this page is ignored', async () => {
    const { app, browser } = await pageFor()
    const rt = await makeRequestToken(t.domain, app)
    const url = `/oauth/authorize?oauth_token=${rt.token}&oauth_callback=${encodeURIComponent('https://evil.example/')}`
    const page = await browser.get(url)
    assert.equal(page.statusCode, 200)
    assert.doesNotMatch(page.body, /evil\.example/)
    assert.doesNotMatch(String(page.headers['content-security-policy']), /evil\.example/)
  })

  test('every page carries the security headers', async () => {
    const { response } = await pageFor()
    const csp = String(response.headers['content-security-policy'])
    assert.match(csp, /default-src 'none'/)
    assert.match(csp, /frame-ancestors 'none'/)
    assert.match(csp, /style-src 'sha256-[A-Za-z0-9+/]+=*'/)
    assert.match(csp, /form-action 'self' https:\/\/client\.example(;|$)/)
    assert.equal(response.headers['x-frame-options'], 'DENY')
    assert.equal(response.headers['referrer-policy'], 'no-referrer')
    assert.equal(response.headers['cache-control'], 'no-store')
    assert.equal(response.headers['x-content-type-options'], 'nosniff')
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
  })

  test('a hostile app name and description are shown escaped, never as markup', async () => {
    const { page } = await pageFor({
      name: '<script>alert(1)</script>',
      description: '"><img src=x onerror=alert(1)>',
    })
    assert.ok(!page.includes('<script>alert(1)</script>'))
    assert.ok(!page.includes('<img src=x'))
    assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'))
    assert.ok(page.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'))
  })

  test('a website that is not http(s) is shown as text, never as a link', async () => {
    const { user: owner } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { owner })
    await t.domain.stores.apps.update(app.id, { website: 'javascript:alert(1)' }, Date.now())
    const rt = await makeRequestToken(t.domain, app)
    const page = (await new Browser(t.app).get(`/oauth/authorize?oauth_token=${rt.token}`)).body
    assert.match(page, /<p>Website: javascript:alert\(1\)<\/p>/)
    assert.doesNotMatch(page, /href="javascript:/)
  })

  test('a hostile screen_name cannot break out of the username field', async () => {
    const { page } = await pageFor({}, `&screen_name=${encodeURIComponent('"><script>x()</script>')}`)
    assert.ok(!page.includes('<script>x()'))
    assert.match(page, /value="&quot;&gt;&lt;script&gt;x\(\)&lt;\/script&gt;"/)
  })

  test('the session cookie is HttpOnly, SameSite=Lax, Path=/ and not Secure over plain http', async () => {
    const { response } = await pageFor()
    const cookie = response.cookies.find((c) => c.name === SESSION_COOKIE)
    assert.ok(cookie)
    assert.equal(cookie.httpOnly, true)
    assert.equal(cookie.sameSite, 'Lax')
    assert.equal(cookie.path, '/')
    assert.notEqual(cookie.secure, true)
  })

  test('a malformed query gives an HTML 400 page', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/oauth/authorize?oauth_token=%zz' })
    assert.equal(response.statusCode, 400)
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(response.body, /This request was not valid\. Go back to the app and start again\./)
  })
})

describe('the session cookie over https', () => {
  test('is Secure and named __Host- (Path=/, no Domain) when the request came over https through a trusted proxy', async (ctx) => {
    const t = await buildTestApp({ http: { trustProxy: ['127.0.0.1'] } })
    ctx.after(() => t.close())
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const response = await t.app.inject({
      method: 'GET',
      url: `/oauth/authorize?oauth_token=${rt.token}`,
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-proto': 'https' },
    })
    assert.equal(response.statusCode, 200)
    assert.equal(response.cookies.find((c) => c.name === SESSION_COOKIE), undefined, 'not the plain name over https')
    const cookie = response.cookies.find((c) => c.name === `__Host-${SESSION_COOKIE}`)
    assert.equal(cookie?.secure, true)
    assert.equal(cookie?.httpOnly, true)
    assert.equal(cookie?.sameSite, 'Lax')
    assert.equal(cookie?.path, '/')
    assert.equal(cookie?.domain, undefined)
  })
})
