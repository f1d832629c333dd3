// The console's account pages (src/pages/console/account-routes.ts): sign-in, sign-out, sign-up, the
// list of apps and the new-app form, as a browser meets them.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { whileDatabaseLocked } from '../../helpers/locked-database.ts'
import { isPostgresUrl } from '../../../src/storage/urls.ts'
import { injectedTestServer, type TestServer } from '../../helpers/test-app.ts'
import { Browser, csrfOf } from '../../helpers/browser.ts'

let address = 0
const nextAddress = () => `10.45.${Math.floor(++address / 250)}.${address % 250}`

describe('console account pages', () => {
  let t: TestServer
  const logLines: string[] = []
  before(async () => {
    t = await injectedTestServer({ http: { allowSignup: true }, logLines })
  })
  after(() => t.close())

  const browser = () => new Browser(t.app, nextAddress())
  const errorsLogged = (from: number) => logLines.slice(from).map((line) => JSON.parse(line) as { level: number; msg?: string }).filter((line) => line.level >= 50)
  const usernameValue = (page: string, name: string) => new RegExp(`name="${name}" type="text" value="([^"]*)"`).exec(page)?.[1]

  async function signedIn() {
    const { user, password } = await makeUser(t.domain)
    const b = browser()
    assert.equal((await b.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })).statusCode, 302)
    return { browser: b, user }
  }

  test('a refused sign-in shows the form again with the username typed, cut to 64 characters', async () => {
    const typed = `${'a'.repeat(64)}${'b'.repeat(30)}`
    const answer = await browser().fill('/console', '/console/sign-in', { username: typed, password: 'not the password', next: '/console' })
    assert.equal(answer.statusCode, 401)
    assert.equal(usernameValue(answer.body, 'username'), 'a'.repeat(64))
  })

  test('the sign-in form is empty and says what it is for: the console, the sessions, the password, the connected apps', async () => {
    const headings: Array<[string, string]> = [
      ['/console', 'Sign in to the developer console'],
      ['/settings/sessions', 'Sign in to see your sessions'],
      ['/settings/password', 'Sign in to change your password'],
      ['/settings/connected_apps', 'Sign in to see your connected apps'],
    ]
    for (const [path, heading] of headings) {
      const page = await browser().get(path)
      assert.equal(page.statusCode, 200, path)
      assert.match(page.body, new RegExp(`<h1>${heading}</h1>`), path)
      assert.equal(usernameValue(page.body, 'username'), '', path)
    }
  })

  test('sign-in leads only to pages of this site, even when the address ends like one', async () => {
    const { user, password } = await makeUser(t.domain)
    for (const next of ['https://evil.example/console', '//evil.example/console', 'x/settings/sessions']) {
      const answer = await browser().fill('/console', '/console/sign-in', { username: user.screenName, password, next })
      assert.equal(answer.headers.location, '/console', next)
    }
    const kept = await browser().fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/settings/sessions' })
    assert.equal(kept.headers.location, '/settings/sessions')
  })

  test('the first value of a repeated field is the one used', async () => {
    const { user, password } = await makeUser(t.domain)
    const b = browser()
    const csrf = csrfOf((await b.get('/console')).body)
    const answer = await b.post('/console/sign-in', [
      ['csrf_token', csrf],
      ['username', user.screenName],
      ['password', password],
      ['password', 'not the password'],
      ['next', '/settings/sessions'],
      ['next', '/settings/password'],
    ])
    assert.equal(answer.statusCode, 302)
    assert.equal(answer.headers.location, '/settings/sessions')
  })

  test('a sign-in or sign-up form missing a field shows it empty, and makes no account', async () => {
    const signIn = await browser().fill('/console', '/console/sign-in', { password: 'whatever', next: '/console' })
    assert.equal(signIn.statusCode, 401)
    assert.equal(usernameValue(signIn.body, 'username'), '')
    const name = `nofield${Date.now() % 100000}`
    for (const fields of [{ name: 'Dev', password: 'a good password' }, { screen_name: name, password: 'a good password' }, { screen_name: name, name: 'Dev' }] as Array<Record<string, string>>) {
      const signUp = await browser().fill('/console/signup', '/console/signup', fields)
      assert.equal(signUp.statusCode, 400, JSON.stringify(fields))
      assert.equal(usernameValue(signUp.body, 'screen_name'), fields.screen_name ?? '')
      assert.equal(usernameValue(signUp.body, 'name'), fields.name ?? '')
    }
    assert.equal(await t.domain.stores.users.findByScreenName(name), undefined)
  })

  test("one person's changes do not use up another's budget, and a refusal for the budget says why in the log", async () => {
    const from = logLines.length
    const spender = await signedIn()
    const other = await signedIn()
    const csrf = csrfOf((await spender.browser.get('/console')).body)
    let answer
    do answer = await spender.browser.post('/console/apps/1/suspend', { csrf_token: csrf })
    while (answer.statusCode === 404)
    assert.equal(answer.statusCode, 429)
    const otherCsrf = csrfOf((await other.browser.get('/console')).body)
    assert.equal((await other.browser.post('/console/apps/1/suspend', { csrf_token: otherCsrf })).statusCode, 404, 'not limited')
    const refusals = logLines.slice(from).map((line) => JSON.parse(line) as { msg?: string; detail?: string }).filter((line) => line.msg === 'page refused' && line.detail === 'console page limit')
    assert.equal(refusals.length, 1)
  })

  test('signing out without having signed in just leads back to the console, signed out', async () => {
    const from = logLines.length
    const b = browser()
    const answer = await b.fill('/console', '/console/sign-out', {})
    assert.equal(answer.statusCode, 302)
    assert.equal(answer.headers.location, '/console')
    assert.match((await b.get('/console')).body, /name="password"/)
    assert.deepEqual(errorsLogged(from), [])
  })

  test('signing out leads to /console, where the sign-in form is shown', async () => {
    const { browser: b } = await signedIn()
    const answer = await b.fill('/console', '/console/sign-out', {})
    assert.equal(answer.headers.location, '/console')
    assert.match((await b.get('/console')).body, /name="password"/)
  })

  test('the sign-up page is empty for a new visitor and sends a signed-in person to the console', async () => {
    const page = await browser().get('/console/signup')
    assert.equal(page.statusCode, 200)
    assert.equal(usernameValue(page.body, 'screen_name'), '')
    assert.equal(usernameValue(page.body, 'name'), '')
    const { browser: b } = await signedIn()
    const again = await b.get('/console/signup')
    assert.equal(again.statusCode, 302)
    assert.equal(again.headers.location, '/console')
  })

  test('sign-up takes the screen name without the spaces around it', async () => {
    const screenName = `trim${Date.now() % 100000}`
    const answer = await browser().fill('/console/signup', '/console/signup', { screen_name: `  ${screenName} `, name: 'Dev', password: 'a good password' })
    assert.equal(answer.statusCode, 302)
    assert.equal((await t.domain.stores.users.findByScreenName(screenName))?.screenName, screenName)
  })

  test('a refused sign-up shows what was typed again, the screen name cut to 64 characters and the name to 100', async () => {
    const answer = await browser().fill('/console/signup', '/console/signup', { screen_name: 's'.repeat(80), name: 'n'.repeat(130), password: 'a good password' })
    assert.equal(answer.statusCode, 400)
    assert.equal(usernameValue(answer.body, 'screen_name'), 's'.repeat(64))
    assert.equal(usernameValue(answer.body, 'name'), 'n'.repeat(100))
  })

  test('the new-app form: description kept, website and each callback line trimmed, one callback per line whatever the line ending', async () => {
    const { browser: b, user } = await signedIn()
    const answer = await b.fill('/console/apps/new', '/console/apps', {
      name: 'Typed app',
      description: 'What it does',
      website: '  https://typed.example  ',
      callbacks: ' https://typed.example/one \nhttps://typed.example/two\r\n\r\n  https://typed.example/three',
      type: 'web',
      access_level: 'read',
    })
    assert.equal(answer.statusCode, 302)
    const [app] = (await t.domain.stores.apps.list()).filter((a) => a.ownerId === user.id).filter((a) => a.name === 'Typed app')
    assert.equal(app?.description, 'What it does')
    assert.equal(app?.website, 'https://typed.example')
    assert.deepEqual(app?.callbackUrls, ['https://typed.example/one', 'https://typed.example/two', 'https://typed.example/three'])
  })

  test('a new-app form without its optional fields makes an app without them; without a name it is refused', async () => {
    const { browser: b, user } = await signedIn()
    const form = (await b.get('/console/apps/new')).body
    assert.match(form, /<textarea id="description" name="description" maxlength="500"><\/textarea>/, 'an empty description to begin with')
    assert.match(form, /<input id="website" name="website" type="url" value="" placeholder="https:\/\/example\.com">/, 'and an empty website')
    const answer = await b.fill('/console/apps/new', '/console/apps', { name: 'Bare app', type: 'desktop', access_level: 'read' })
    assert.equal(answer.statusCode, 302)
    const [app] = (await t.domain.stores.apps.list()).filter((a) => a.ownerId === user.id).filter((a) => a.name === 'Bare app')
    assert.equal(app?.description, '')
    assert.equal(app?.website, '')
    assert.deepEqual(app?.callbackUrls, [])
    const nameless = await b.fill('/console/apps/new', '/console/apps', { type: 'desktop', access_level: 'read' })
    assert.equal(nameless.statusCode, 400)
    assert.match(nameless.body, /name="name"/, 'the form again')
    assert.equal((await t.domain.stores.apps.list()).filter((a) => a.ownerId === user.id).length, 1)
  })

  test('a cursor that is not an app id shows the first page of apps; a real one a later page', async () => {
    const { browser: b, user } = await signedIn()
    await makeApp(t.domain, { owner: user, name: 'Only app' })
    for (const cursor of ['abc', '12x', 'x12', '', '1'.repeat(21)]) {
      const page = await b.get(`/console?after=${cursor}`)
      assert.equal(page.statusCode, 200)
      assert.match(page.body, /Only app/, `after=${cursor}`)
      assert.doesNotMatch(page.body, /First page/, `after=${cursor}`)
    }
    const later = await b.get('/console?after=0')
    assert.match(later.body, /First page/)
  })

  test('every page that needs a person sends a signed-out visitor to sign in, and nothing fails on the way', async () => {
    const from = logLines.length
    for (const path of ['/console', '/console/apps/new']) {
      const answer = await browser().get(path)
      assert.equal(answer.statusCode, 200, path)
      assert.match(answer.body, /name="password"/, path)
    }
    const b = browser()
    const posted = await b.fill('/console', '/console/apps', { name: 'Nobody’s app', callbacks: 'https://client.example/cb', type: 'web', access_level: 'read' })
    assert.equal(posted.statusCode, 302)
    assert.equal(posted.headers.location, '/console')
    assert.deepEqual(errorsLogged(from), [])
  })

  test('a database that cannot be written gives the plain error page, never the form as if the person had made a mistake', async (ctx) => {
    if (isPostgresUrl(t.dbPath)) return ctx.skip('locks the SQLite file')
    const { browser: b } = await signedIn()
    const newcomer = browser()
    const signUpPage = await newcomer.get('/console/signup')
    const newAppPage = await b.get('/console/apps/new')
    const { user } = await makeUser(t.domain)
    const returning = browser()
    const signInPage = await returning.get('/console')
    await whileDatabaseLocked(t.dbPath, async () => {
      const answers = [
        await b.post('/console/apps', { csrf_token: csrfOf(newAppPage.body), name: 'Locked out', callbacks: 'https://client.example/cb', type: 'web', access_level: 'read' }),
        await newcomer.post('/console/signup', { csrf_token: csrfOf(signUpPage.body), screen_name: `locked${Date.now() % 100000}`, name: 'Locked', password: 'a good password' }),
        await returning.post('/console/sign-in', { csrf_token: csrfOf(signInPage.body), username: user.screenName, password: 'not the password', next: '/console' }),
      ]
      for (const answer of answers) {
        assert.equal(answer.statusCode, 503)
        assert.match(answer.body, /Something went wrong/)
        assert.doesNotMatch(answer.body, /<form/)
      }
    })
  })
})
