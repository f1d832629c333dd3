import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { buildTestApp, type TestApp } from '../helpers/test-app.ts'
import { Browser, csrfOf, SESSION_COOKIE, textOf } from '../helpers/browser.ts'
import { makeRequestToken, openAndAllow, openAndPress, signInAndAllow } from '../helpers/consent-pages.ts'

describe('POST /oauth/authorize: Authorize app, Cancel, switch account', () => {
  let t: TestApp
  before(async () => {
    t = await buildTestApp()
  })
  after(() => t.close())

  const statusOf = async (token: string) => (await t.domain.stores.requestTokens.findByToken(token))?.status

  test('Authorize app signs in and approves in one step, redirecting to the callback with its own query kept', async () => {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { callbackUrls: ['https://client.example/cb?state=xyz&lang=en'] })
    const rt = await makeRequestToken(t.domain, app)
    const response = await openAndAllow(new Browser(t.app), '/oauth/authorize', rt.token, {
      username: user.screenName,
      password,
    })
    assert.equal(response.statusCode, 302)
    assert.equal(response.body, '')
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(String(response.headers['content-security-policy']), /form-action 'none'/)
    assert.equal(response.headers['referrer-policy'], 'no-referrer', 'the callback URL holds the verifier')
    const location = new URL(String(response.headers.location))
    assert.equal(`${location.origin}${location.pathname}`, 'https://client.example/cb')
    assert.deepEqual([...location.searchParams.keys()], ['state', 'lang', 'oauth_token', 'oauth_verifier'])
    assert.equal(location.searchParams.get('state'), 'xyz')
    assert.equal(location.searchParams.get('oauth_token'), rt.token)
    assert.match(location.searchParams.get('oauth_verifier') ?? '', /^[A-Za-z0-9]{32}$/)
    assert.equal(await statusOf(rt.token), 'authorized')
  })

  test('for an oob app, Authorize app shows a 7-digit PIN in #oauth_pin and says to type it into the app', async () => {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { name: 'Desk Tool', type: 'desktop', callbackUrls: [] })
    const rt = await makeRequestToken(t.domain, app, { callback: 'oob' })
    const response = await openAndAllow(new Browser(t.app), '/oauth/authorize', rt.token, {
      username: user.screenName,
      password,
    })
    assert.equal(response.statusCode, 200)
    assert.match(textOf(response.body, 'oauth_pin') ?? '', /^\d{7}$/)
    assert.match(response.body, /<title>Your PIN · Latchkey<\/title>/)
    assert.match(response.body, /go back to Desk Tool and type in this PIN/)
    assert.equal(response.headers['cache-control'], 'no-store')
    assert.match(String(response.headers['content-security-policy']), /form-action 'none'/, 'a page with no form')
  })

  test('Cancel redirects with denied=<token> and no oauth_token or oauth_verifier, and the token is dead', async () => {
    const app = await makeApp(t.domain, { callbackUrls: ['https://client.example/cb?state=xyz'] })
    const rt = await makeRequestToken(t.domain, app)
    const browser = new Browser(t.app)
    const response = await openAndPress(browser, '/oauth/authorize', rt.token, 'cancel', { username: '', password: '' })
    assert.equal(response.statusCode, 302)
    assert.equal(response.headers.location, `https://client.example/cb?state=xyz&denied=${rt.token}`)
    assert.equal(await statusOf(rt.token), 'denied')
    const again = await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
    assert.equal(again.statusCode, 410)
  })

  test('for an oob app, Cancel shows a page saying access was denied', async () => {
    const app = await makeApp(t.domain, { name: 'Desk Tool', callbackUrls: [] })
    const rt = await makeRequestToken(t.domain, app, { callback: 'oob' })
    const response = await openAndPress(new Browser(t.app), '/oauth/authorize', rt.token, 'cancel')
    assert.equal(response.statusCode, 200)
    assert.match(response.body, /You did not authorize Desk Tool/)
    assert.match(response.body, /Access was denied/)
    assert.match(response.body, /<title>Access denied · Latchkey<\/title>/)
    assert.equal(await statusOf(rt.token), 'denied')
  })

  test('a signed-in person approves without typing the password again', async () => {
    const app = await makeApp(t.domain)
    const { user, browser } = await signInAndAllow(t, app)
    const rt = await makeRequestToken(t.domain, app)
    const response = await openAndAllow(browser, '/oauth/authorize', rt.token)
    assert.equal(response.statusCode, 302)
    assert.equal((await t.domain.stores.requestTokens.findByToken(rt.token))?.userId, user.id)
  })

  test('switching account signs out and shows the sign-in form', async () => {
    const app = await makeApp(t.domain)
    const { browser } = await signInAndAllow(t, app)
    const rt = await makeRequestToken(t.domain, app)
    const page = await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
    assert.match(page.body, /You are signed in as/)
    const switched = await openAndPress(browser, '/oauth/authorize', rt.token, 'switch')
    assert.equal(switched.statusCode, 200)
    assert.match(switched.body, /name="password"/)
    const after = await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
    assert.doesNotMatch(after.body, /You are signed in as/, 'still signed out on the next visit')
    assert.equal(await statusOf(rt.token), 'issued')
  })

  test('switching account ends the old session on the server: a copy of the old cookie is signed out too (the twin: an untouched copy is still in)', async () => {
    const app = await makeApp(t.domain)
    const { browser } = await signInAndAllow(t, app)
    const rt = await makeRequestToken(t.domain, app)
    const copy = browser.copy()
    const copyCookie = decodeURIComponent(copy.cookies.get(SESSION_COOKIE) ?? '')
    assert.match((await copy.copy().get(`/oauth/authorize?oauth_token=${rt.token}`)).body, /You are signed in as/, 'the copy works before the switch')
    await openAndPress(browser, '/oauth/authorize', rt.token, 'switch')
    const replayed = await copy.get(`/oauth/authorize?oauth_token=${rt.token}`)
    assert.equal(replayed.statusCode, 200)
    const rewritten = replayed.cookies.find((c) => c.name === SESSION_COOKIE)
    assert.ok(rewritten, 'the ended claim is dropped from the cookie')
    assert.equal(rewritten.value.split('.')[0], copyCookie.split('.')[0]!.split(':')[0], 'the CSRF value stays (a form open in another tab still posts)')
    assert.doesNotMatch(replayed.body, /You are signed in as/, 'the old cookie no longer signs anyone in')
    assert.match(replayed.body, /name="password"/)
  })

  test('"Sign in with another account" posted by a visitor who is not signed in just shows the sign-in form', async () => {
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const switched = await openAndPress(new Browser(t.app), '/oauth/authorize', rt.token, 'switch')
    assert.equal(switched.statusCode, 200)
    assert.match(switched.body, /name="password"/)
  })

  test('the first value wins: a repeated oauth_token or action in the query or the form never changes which token or action is used', async () => {
    const first = await makeApp(t.domain, { name: 'First of two' })
    const second = await makeApp(t.domain, { name: 'Second of two' })
    const { browser } = await signInAndAllow(t, first)
    const press = async (tokens: [string, string], actions: [string, string]) => {
      const page = await browser.get(`/oauth/authorize?oauth_token=${tokens[0]}&oauth_token=${tokens[1]}`)
      assert.equal(page.statusCode, 200)
      return { page, answer: await browser.post('/oauth/authorize', [['csrf_token', csrfOf(page.body)], ['oauth_token', tokens[0]], ['oauth_token', tokens[1]], ['action', actions[0]], ['action', actions[1]]]) }
    }
    const a = (await makeRequestToken(t.domain, first)).token
    const b = (await makeRequestToken(t.domain, second)).token
    const cancelled = await press([a, b], ['cancel', 'allow'])
    assert.match(cancelled.page.body, /First of two/)
    assert.doesNotMatch(cancelled.page.body, /Second of two/)
    assert.equal(await statusOf(a), 'denied', 'the first token, the first action')
    assert.equal(await statusOf(b), 'issued', 'the second token is untouched')
    // The twin: the same pairs the other way round approve the other token.
    const c = (await makeRequestToken(t.domain, first)).token
    const approved = await press([b, c], ['allow', 'cancel'])
    assert.match(approved.page.body, /Second of two/)
    assert.equal(approved.answer.statusCode, 302, approved.answer.body)
    assert.equal(await statusOf(b), 'authorized')
    assert.equal(await statusOf(c), 'issued')
  })

  test('a form without the CSRF token, or with a wrong one, is refused with 403 and nothing changes', async () => {
    const { user, password } = await makeUser(t.domain)
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const browser = new Browser(t.app)
    const page = await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
    const fields = { oauth_token: rt.token, action: 'allow', username: user.screenName, password }
    for (const csrf of [undefined, 'A'.repeat(32)]) {
      const response = await browser.post('/oauth/authorize', csrf ? { ...fields, csrf_token: csrf } : fields)
      assert.equal(response.statusCode, 403)
      assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
      assert.match(response.body, /This form has expired or did not come from this site/)
    }
    const noCookie = await new Browser(t.app).post('/oauth/authorize', { ...fields, csrf_token: 'A'.repeat(32) })
    assert.equal(noCookie.statusCode, 403)
    const cancel = await browser.post('/oauth/authorize', { oauth_token: rt.token, action: 'cancel' })
    assert.equal(cancel.statusCode, 403)
    assert.equal(await statusOf(rt.token), 'issued')
    // The same form with the page's own CSRF value approves (a redirect to the callback).
    await assertRefusedOnlyWhenBroken(
      (variant) => browser.post('/oauth/authorize', { ...fields, csrf_token: variant === 'broken' ? 'A'.repeat(32) : csrfOf(page.body) }),
      { status: 403 },
      302,
    )
    assert.equal(await statusOf(rt.token), 'authorized')
  })

  test('a tampered session cookie counts as no session', async () => {
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const browser = new Browser(t.app)
    const page = await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
    const csrf = csrfOf(page.body)
    browser.cookies.set(SESSION_COOKIE, `${csrf}:1:${Date.now()}.forged`)
    const response = await browser.post('/oauth/authorize', { csrf_token: csrf, oauth_token: rt.token, action: 'allow' })
    assert.equal(response.statusCode, 403)
  })

  test('Authorize app with no session and no password asks the person to sign in', async () => {
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const response = await openAndPress(new Browser(t.app), '/oauth/authorize', rt.token, 'allow')
    assert.equal(response.statusCode, 401)
    assert.match(response.body, /Please sign in to authorize this app\./)
    assert.match(response.body, /name="username" type="text" value=""/, 'nothing prefilled')
    assert.equal(await statusOf(rt.token), 'issued')
  })

  test('a form with only a username, or only a password, is a sign-in that fails; nothing is approved', async () => {
    const { user, password } = await makeUser(t.domain)
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    for (const fields of [{ username: user.screenName }, { password }] as Array<Record<string, string>>) {
      const response = await openAndPress(new Browser(t.app), '/oauth/authorize', rt.token, 'allow', fields)
      assert.equal(response.statusCode, 401)
      assert.match(response.body, /The username or password is not right\./)
      assert.match(response.body, new RegExp(`name="username" type="text" value="${fields.username ?? ''}"`))
    }
    assert.equal(await statusOf(rt.token), 'issued')
  })

  test('force_login in the form asks a signed-in person for the password again; without it they approve', async () => {
    const app = await makeApp(t.domain)
    const { browser } = await signInAndAllow(t, app)
    const rt = await makeRequestToken(t.domain, app)
    const forced = await openAndPress(browser, '/oauth/authorize', rt.token, 'allow', { force_login: 'true' })
    assert.equal(forced.statusCode, 401)
    assert.match(forced.body, /Please sign in to authorize this app\./)
    assert.equal(await statusOf(rt.token), 'issued')
    assert.equal((await openAndPress(browser, '/oauth/authorize', rt.token, 'allow')).statusCode, 302)
  })

  test('a refused sign-in shows the form again with the username typed, cut to 64 characters', async () => {
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const typed = `${'a'.repeat(64)}${'b'.repeat(36)}`
    const response = await openAndAllow(new Browser(t.app), '/oauth/authorize', rt.token, { username: typed, password: 'not the password' })
    assert.equal(response.statusCode, 401)
    assert.match(response.body, new RegExp(`name="username" type="text" value="${'a'.repeat(64)}"`))
    assert.equal(await statusOf(rt.token), 'issued')
  })

  test('switching account while force_login is on keeps asking for the password on every later form, the username empty', async () => {
    const app = await makeApp(t.domain)
    const { browser, user } = await signInAndAllow(t, app)
    const rt = await makeRequestToken(t.domain, app)
    const page = await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
    const fields = { csrf_token: csrfOf(page.body), oauth_token: rt.token, action: 'switch' }
    const switched = await browser.post('/oauth/authorize', { ...fields, force_login: 'true' })
    assert.equal(switched.statusCode, 200)
    assert.match(switched.body, /<input type="hidden" name="force_login" value="true">/)
    assert.match(switched.body, /name="username" type="text" value=""/)
    assert.doesNotMatch(switched.body, new RegExp(user.screenName))
    // The twin: without force_login the form carries none.
    const again = await signInAndAllow(t, app)
    const next = await again.browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
    const plain = await again.browser.post('/oauth/authorize', { csrf_token: csrfOf(next.body), oauth_token: rt.token, action: 'switch' })
    assert.equal(plain.statusCode, 200)
    assert.doesNotMatch(plain.body, /name="force_login"/)
  })
})

describe('POST /oauth/authorize: a form that is no button of the page', () => {
  test('an action other than allow, cancel or switch (or none) is a 400 page that approves nothing; the log says why', async (ctx) => {
    const logLines: string[] = []
    const t = await buildTestApp({ logLines })
    ctx.after(() => t.close())
    const app = await makeApp(t.domain)
    const { browser } = await signInAndAllow(t, app)
    const rt = await makeRequestToken(t.domain, app)
    for (const action of ['approve', undefined]) {
      const page = await browser.get(`/oauth/authorize?oauth_token=${rt.token}`)
      const fields: Record<string, string> = { csrf_token: csrfOf(page.body), oauth_token: rt.token, ...(action ? { action } : {}) }
      const response = await browser.post('/oauth/authorize', fields)
      assert.equal(response.statusCode, 400, `action ${action}`)
      assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
      assert.match(response.body, /This request was not valid\./)
      assert.equal((await t.domain.stores.requestTokens.findByToken(rt.token))?.status, 'issued')
    }
    const refusals = logLines.map((line) => JSON.parse(line) as { msg?: string; detail?: string }).filter((line) => line.msg === 'page refused')
    assert.deepEqual(refusals.map((line) => line.detail), ['unknown form action', 'unknown form action'])
  })
})
