// Issue 14: the console is usable with the keyboard alone. A developer signs up and creates an app
// without a mouse: only Tab, typing, Space and Enter.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import type { TestServer } from '../../helpers/test-app.ts'
import { newPerson, open, skipReason } from './browser.ts'
import { closeBrowserEnvironment, startBrowserEnvironment } from './environment.ts'
import type { CallbackSite } from './oauth.ts'

/** Presses Tab until the element matching `selector` has the focus (at most 40 times). */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab')
    if (await page.locator(selector).evaluate((element) => element === document.activeElement)) return
  }
  assert.fail(`Tab never reaches ${selector}`)
}

describe('the developer console with the keyboard alone', { skip: skipReason }, () => {
  let server: TestServer
  let site: CallbackSite
  let browser: Browser

  before(async () => {
    ;({ browser, server, site } = await startBrowserEnvironment({ http: { allowSignup: true } }))
  })
  after(() => closeBrowserEnvironment({ browser, server, site }))

  test('sign up, open the new app form, fill it in and create the app with Tab, typing, Space and Enter', async () => {
    const page = await newPerson(browser)
    await open(page, `${server.url}/console/signup`)
    await tabTo(page, 'input[name="screen_name"]')
    await page.keyboard.type(`keys${Date.now() % 100_000}`)
    await tabTo(page, 'input[name="name"]')
    await page.keyboard.type('Kay Board')
    await tabTo(page, 'input[name="password"]')
    await page.keyboard.type('correct horse battery')
    await Promise.all([page.waitForURL(`${server.url}/console`), page.keyboard.press('Enter')])

    await tabTo(page, 'a[href="/console/apps/new"]')
    await Promise.all([page.waitForURL(`${server.url}/console/apps/new`), page.keyboard.press('Enter')])
    await tabTo(page, 'input[name="name"]')
    await page.keyboard.type('Keyboard App')
    await tabTo(page, 'textarea[name="callbacks"]')
    await page.keyboard.type(site.registered)
    await tabTo(page, 'input[name="sign_in"]')
    await page.keyboard.press('Space')
    await tabTo(page, '#create_app')
    await Promise.all([page.waitForURL(/\/console\/apps\/\d+$/), page.keyboard.press('Enter')])
    assert.match((await page.textContent('#consumer_secret')) ?? '', /^[A-Za-z0-9]{50}$/)
    assert.equal(await page.locator('h1').innerText(), 'Keyboard App')
  })
})
