// The screenshots the README shows (issue 3): the consent page signed out and signed in, and the
// PIN page, taken from the real pages at a 1000x800 viewport. They are taken on every run (so a
// page that no longer renders fails here) but written to docs/screenshots only when
// LATCHKEY_UPDATE_SCREENSHOTS=1, so an ordinary test run never changes the repository.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { assertAccessible, newPerson, open, skipReason, submitWith } from './browser.ts'
import { getRequestToken } from './oauth.ts'
import { useBrowserEnvironment } from './environment.ts'

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
  const env = useBrowserEnvironment()


  test(`the consent page signed out and signed in, and the PIN page${isUpdating ? ' (written to docs/screenshots)' : ''}`, async () => {
    const owner = await makeUser(env.server.domain, { screenName: 'ada', name: 'Ada Lovelace' })
    const app = await makeApp(env.server.domain, {
      owner: owner.user,
      name: 'Birdwatch',
      description: 'Counts the birds in your timeline and posts a weekly summary.',
      website: 'https://birdwatch.example',
      callbackUrls: [env.site.registered],
    })
    const { user, password } = await makeUser(env.server.domain, { screenName: 'grace', name: 'Grace Hopper' })
    const page = await newPerson(env.browser)

    const web = await getRequestToken(env.server, app, env.site.registered)
    await open(page, `${env.server.url}/oauth/authorize?oauth_token=${web.token}`)
    await assertAccessible(page, 'the consent page, signed out')
    await screenshot(page, 'consent-signed-out.png')
    await page.fill('#username', user.screenName)
    await page.fill('#password', password)
    await submitWith(page, '#allow')
    assert.equal(new URL(page.url()).pathname, '/callback')

    const oob = await getRequestToken(env.server, app, 'oob')
    await open(page, `${env.server.url}/oauth/authorize?oauth_token=${oob.token}`)
    assert.match(await page.locator('main').innerText(), /You are signed in as Grace Hopper \(@grace\)\./)
    await assertAccessible(page, 'the consent page, signed in')
    await screenshot(page, 'consent-signed-in.png')

    await submitWith(page, '#allow')
    assert.match(await page.locator('#oauth_pin').innerText(), /^\d{7}$/)
    await assertAccessible(page, 'the PIN page')
    await screenshot(page, 'pin.png')
  })
})
