import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { buildTestApp, testClock, type TestApp } from '../helpers/test-app.ts'
import { makeRequestToken, newBrowser, openAndAllow, visit } from './helpers.ts'

describe('the browser session', () => {
  const clock = testClock()
  let t: TestApp
  before(async () => {
    t = await buildTestApp({ clock })
  })
  after(() => t.close())

  test('keeps a person signed in for 30 days, then asks for the password again', async () => {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain)
    const browser = newBrowser()
    await openAndAllow(t.app, browser, '/oauth/authorize', (await makeRequestToken(t.domain, app)).token, {
      username: user.screenName,
      password,
    })
    clock.advance(30 * 24 * 3600 * 1000 - 60_000)
    const before = await visit(t.app, browser, `/oauth/authorize?oauth_token=${(await makeRequestToken(t.domain, app)).token}`)
    assert.match(before.body, /You are signed in as/)
    clock.advance(60_000)
    const afterExpiry = await visit(t.app, browser, `/oauth/authorize?oauth_token=${(await makeRequestToken(t.domain, app)).token}`)
    assert.doesNotMatch(afterExpiry.body, /You are signed in as/)
    assert.match(afterExpiry.body, /name="password"/)
  })
})
