// The consent page of GET /oauth/authorize as a person meets it in a real browser (issue 3): sign in
// and allow, cancel, force_login, the screen_name prefill and switching account; each ends with
// what the app really gets, through its callback and POST /oauth/access_token.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import type { AppRecord, UserRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { errorCode } from '../../helpers/oauth1-client.ts'
import { assertAccessible, mainText, newPerson, open, skipReason, submitWith } from './browser.ts'
import { useBrowserEnvironment } from './environment.ts'
import { CALLBACK_PAGE_TEXT, exchange, exchangeAndVerify, getRequestToken } from './oauth.ts'

describe('the consent page in Chromium', { skip: skipReason }, () => {
  const env = useBrowserEnvironment()
  let app: AppRecord
  let callback: string

  before(async () => {
    app = await makeApp(env.server.domain, {
      name: 'Birdwatch',
      description: 'Counts the birds in your timeline.',
      website: 'https://birdwatch.example',
      callbackUrls: [env.site.registered],
    })
    callback = `${env.site.registered}?state=xyz`
  })

  const authorizeUrl = (token: string, query = '') => `${env.server.url}/oauth/authorize?oauth_token=${encodeURIComponent(token)}${query}`

  /** The URL the browser landed on is the callback, with the app's own query kept. */
  function assertOnCallback(page: Page): URL {
    const landed = new URL(page.url())
    assert.equal(`${landed.origin}${landed.pathname}`, env.site.registered)
    assert.equal(landed.searchParams.get('state'), 'xyz', "the callback's own query is kept")
    assert.equal(env.site.received.at(-1)?.href, landed.href, 'the callback site received exactly that URL')
    return landed
  }

  /** Signs in on the open consent page and presses "Authorize app"; returns the verifier the callback got. */
  async function signInAndAllow(page: Page, user: UserRecord, password: string, token: string): Promise<string> {
    await page.fill('#username', user.screenName)
    await page.fill('#password', password)
    const response = await submitWith(page, '#allow')
    const post = response.request().redirectedFrom()
    assert.equal(post?.method(), 'POST')
    assert.equal((await post?.response())?.status(), 302, 'the form answers with a redirect to the callback')
    assert.equal(response.status(), 200)
    assert.equal(await mainText(page), CALLBACK_PAGE_TEXT)
    const landed = assertOnCallback(page)
    assert.equal(landed.searchParams.get('oauth_token'), token)
    const verifier = landed.searchParams.get('oauth_verifier')
    assert.ok(verifier, 'the callback carries an oauth_verifier')
    return verifier
  }

  test('signed out: the page names the app and what it may do, and signing in and allowing is one step that ends in a working token', async () => {
    const { user, password } = await makeUser(env.server.domain, { name: 'Grace Hopper' })
    const rt = await getRequestToken(env.server, app, callback)
    const page = await newPerson(env.browser)

    const response = await open(page, authorizeUrl(rt.token))
    assert.equal(response.status(), 200)
    assert.equal(await page.title(), 'Authorize Birdwatch · Latchkey')
    assert.equal(await page.locator('h1').innerText(), 'Authorize Birdwatch to use your account?')
    const text = await mainText(page)
    assert.match(text, /Counts the birds in your timeline\./)
    assert.match(text, /Website: https:\/\/birdwatch\.example/)
    assert.match(text, /This app will be able to: .*Post and delete posts for you\./)
    assert.match(text, /It will not be able to: .*See or change your password\./)
    assert.ok(await page.locator('#username').isVisible())
    assert.ok(await page.locator('#password').isVisible())
    assert.equal(await page.locator('#allow').innerText(), 'Authorize app')
    assert.equal(await page.locator('#cancel').innerText(), 'Cancel')
    await assertAccessible(page, 'the consent page, signed out')

    const verifier = await signInAndAllow(page, user, password, rt.token)
    const access = await exchangeAndVerify(env.server, app, rt, verifier)
    assert.equal(access.screenName, user.screenName)
    assert.equal(access.userId, user.id)
  })

  test('signed in: the page says who is signed in, asks for no password, and Authorize app approves as that person', async () => {
    const { user, password } = await makeUser(env.server.domain, { name: 'Katherine Johnson' })
    const page = await newPerson(env.browser)
    const first = await getRequestToken(env.server, app, callback)
    await open(page, authorizeUrl(first.token))
    const firstAccess = await exchangeAndVerify(env.server, app, first, await signInAndAllow(page, user, password, first.token))

    const second = await getRequestToken(env.server, app, callback)
    const response = await open(page, authorizeUrl(second.token))
    assert.equal(response.status(), 200)
    assert.match(await mainText(page), new RegExp(`You are signed in as Katherine Johnson \\(@${user.screenName}\\)\\.`))
    assert.equal(await page.locator('#password').count(), 0, 'no password field')
    assert.ok(await page.getByRole('button', { name: 'Sign in with another account' }).isVisible())
    await assertAccessible(page, 'the consent page, signed in')

    await submitWith(page, '#allow')
    const landed = assertOnCallback(page)
    assert.equal(landed.searchParams.get('oauth_token'), second.token)
    const access = await exchangeAndVerify(env.server, app, second, landed.searchParams.get('oauth_verifier') ?? '')
    assert.equal(access.screenName, user.screenName)
    assert.equal(access.token, firstAccess.token, 'the same person, app and level get the same access token back')
  })

  test('Cancel sends the person back to the callback with denied=<request token>, and the request token is dead', async () => {
    const rt = await getRequestToken(env.server, app, callback)
    const page = await newPerson(env.browser)
    await open(page, authorizeUrl(rt.token))

    const response = await submitWith(page, '#cancel')
    assert.equal(response.status(), 200)
    assert.equal(await mainText(page), CALLBACK_PAGE_TEXT)
    const landed = assertOnCallback(page)
    assert.equal(landed.searchParams.get('denied'), rt.token)
    assert.equal(landed.searchParams.get('oauth_verifier'), null)
    assert.equal(landed.searchParams.get('oauth_token'), null)

    const answer = await exchange(env.server, app, rt, '1234567')
    assert.equal(answer.status, 401)
    assert.equal(errorCode(answer), 89, 'the app cannot exchange a cancelled request token')

    const again = await open(page, authorizeUrl(rt.token))
    assert.equal(again.status(), 410)
    assert.match(await mainText(page), /This link has already been used or cancelled\./)
    assert.equal(await page.locator('#allow').count(), 0)
    await assertAccessible(page, 'the error page of a cancelled link')
  })

  test('force_login=true demands the password although a session exists, and approves as whoever signs in', async () => {
    const { user, password } = await makeUser(env.server.domain)
    const other = await makeUser(env.server.domain)
    const page = await newPerson(env.browser)
    const first = await getRequestToken(env.server, app, callback)
    await open(page, authorizeUrl(first.token))
    await signInAndAllow(page, user, password, first.token)

    const rt = await getRequestToken(env.server, app, callback)
    const response = await open(page, authorizeUrl(rt.token, '&force_login=true'))
    assert.equal(response.status(), 200)
    assert.ok(await page.locator('#password').isVisible(), 'the password form is shown')
    assert.doesNotMatch(await mainText(page), /You are signed in as/)
    await assertAccessible(page, 'the consent page with force_login=true')

    const verifier = await signInAndAllow(page, other.user, other.password, rt.token)
    const access = await exchangeAndVerify(env.server, app, rt, verifier)
    assert.equal(access.screenName, other.user.screenName)
  })

  test('screen_name= prefills the username; the person types only the password', async () => {
    const { user, password } = await makeUser(env.server.domain)
    const rt = await getRequestToken(env.server, app, callback)
    const page = await newPerson(env.browser)

    await open(page, authorizeUrl(rt.token, `&screen_name=${user.screenName}`))
    assert.equal(await page.inputValue('#username'), user.screenName)
    assert.equal(await page.inputValue('#password'), '')
    await assertAccessible(page, 'the consent page with screen_name prefilled')

    await page.fill('#password', password)
    await submitWith(page, '#allow')
    const landed = assertOnCallback(page)
    const access = await exchangeAndVerify(env.server, app, rt, landed.searchParams.get('oauth_verifier') ?? '')
    assert.equal(access.screenName, user.screenName)
  })

  test('a wrong password shows the page again with a plain message, the username kept, and nothing sent to the app', async () => {
    const { user } = await makeUser(env.server.domain)
    const rt = await getRequestToken(env.server, app, callback)
    const page = await newPerson(env.browser)
    await open(page, authorizeUrl(rt.token))
    const before = env.site.received.length

    await page.fill('#username', user.screenName)
    await page.fill('#password', 'not-the-password')
    const response = await submitWith(page, '#allow')
    assert.equal(response.status(), 401)
    assert.equal(await page.getByRole('alert').innerText(), 'The username or password is not right.')
    assert.equal(await page.inputValue('#username'), user.screenName)
    assert.equal(await page.inputValue('#password'), '')
    assert.equal(env.site.received.length, before, 'the callback was not called')
    await assertAccessible(page, 'the consent page after a wrong password')
  })

  test('"Sign in with another account" shows the sign-in form, and the new person is the one who approves', async () => {
    const first = await makeUser(env.server.domain)
    const second = await makeUser(env.server.domain)
    const page = await newPerson(env.browser)
    const rt1 = await getRequestToken(env.server, app, callback)
    await open(page, authorizeUrl(rt1.token))
    await signInAndAllow(page, first.user, first.password, rt1.token)

    const rt2 = await getRequestToken(env.server, app, callback)
    await open(page, authorizeUrl(rt2.token))
    await submitWith(page, 'button:has-text("Sign in with another account")')
    assert.ok(await page.locator('#password').isVisible())
    assert.doesNotMatch(await mainText(page), /You are signed in as/)
    await assertAccessible(page, 'the consent page after switching account')

    const access = await exchangeAndVerify(env.server, app, rt2, await signInAndAllow(page, second.user, second.password, rt2.token))
    assert.equal(access.screenName, second.user.screenName)
  })
})
