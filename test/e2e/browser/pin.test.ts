// The `oob` flow's end in a real browser (issue 3): the PIN page, and the PIN as the verifier.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import type { AppRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { errorCode } from '../../helpers/oauth1-client.ts'
import { assertAccessible, mainText, newPerson, open, skipReason, submitWith } from './browser.ts'
import { useBrowserEnvironment } from './environment.ts'
import { exchange, exchangeAndVerify, getRequestToken } from './oauth.ts'

describe('the PIN (oob) flow in Chromium', { skip: skipReason }, () => {
  const env = useBrowserEnvironment()
  let app: AppRecord

  before(async () => {
    app = await makeApp(env.server.domain, { name: 'Terminal Tweets' })
  })

  test('allowing shows a 7-digit PIN to type into the app, and that PIN exchanges for a working token', async () => {
    const { user, password } = await makeUser(env.server.domain)
    const rt = await getRequestToken(env.server, app, 'oob')
    const page = await newPerson(env.browser)
    await open(page, `${env.server.url}/oauth/authorize?oauth_token=${rt.token}`)
    await page.fill('#username', user.screenName)
    await page.fill('#password', password)

    const response = await submitWith(page, '#allow')
    assert.equal(response.status(), 200)
    assert.equal(new URL(page.url()).pathname, '/oauth/authorize', 'no redirect: the PIN is shown right here')
    assert.equal(await page.title(), 'Your PIN · Latchkey')
    assert.equal(await page.locator('h1').innerText(), 'You authorized Terminal Tweets')
    assert.match(await mainText(page), /go back to Terminal Tweets and type in this PIN/)
    const pin = await page.locator('#oauth_pin').innerText()
    assert.match(pin, /^\d{7}$/)
    await assertAccessible(page, 'the PIN page')

    const access = await exchangeAndVerify(env.server, app, rt, pin)
    assert.equal(access.screenName, user.screenName)
    const again = await exchange(env.server, app, rt, pin)
    assert.equal(again.status, 401)
    assert.equal(errorCode(again), 89, 'the PIN works once')
  })

  test('Cancel shows a page saying access was denied, and the request token is dead', async () => {
    const rt = await getRequestToken(env.server, app, 'oob')
    const page = await newPerson(env.browser)
    await open(page, `${env.server.url}/oauth/authorize?oauth_token=${rt.token}`)

    const response = await submitWith(page, '#cancel')
    assert.equal(response.status(), 200)
    assert.equal(await page.locator('h1').innerText(), 'You did not authorize Terminal Tweets')
    assert.match(await mainText(page), /Access was denied: Terminal Tweets cannot use your account\./)
    assert.equal(await page.locator('#oauth_pin').count(), 0)
    await assertAccessible(page, 'the access-denied page')

    const answer = await exchange(env.server, app, rt, '1234567')
    assert.equal(answer.status, 401)
    assert.equal(errorCode(answer), 89)
  })
})
