// Links that cannot work, in a real browser (issue 3): an HTML error page with a 4xx status that
// says what happened in plain words, and no way to approve anything.
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { assertAccessible, mainText, newPerson, open, skipReason } from './browser.ts'
import { useBrowserEnvironment } from './environment.ts'

describe('the error pages of the consent step in Chromium', { skip: skipReason }, () => {
  const env = useBrowserEnvironment()

  before(async () => {
  })

  test('an unknown request token: a 404 page saying the link is not valid', async () => {
    const page = await newPerson(env.browser)
    const response = await open(page, `${env.server.url}/oauth/authorize?oauth_token=no-such-request-token`)
    assert.equal(response.status(), 404)
    assert.equal(response.headers()['content-type'], 'text/html; charset=utf-8')
    assert.equal(await page.title(), 'This link does not work · Latchkey')
    assert.equal(await page.locator('h1').innerText(), 'This link does not work')
    assert.equal(await page.getByRole('alert').innerText(), 'This link is not valid. Go back to the app and start again.')
    assert.equal(await page.locator('form, #allow, #cancel').count(), 0, 'nothing to approve')
    await assertAccessible(page, 'the error page of an unknown request token')
  })

  test('no request token at all: a 400 page saying the link has none', async () => {
    const page = await newPerson(env.browser)
    const response = await open(page, `${env.server.url}/oauth/authenticate`)
    assert.equal(response.status(), 400)
    assert.match(await mainText(page), /This link has no request token\. Go back to the app and start again\./)
    assert.equal(await page.locator('form').count(), 0)
    await assertAccessible(page, 'the error page of a link without a request token')
  })
})
