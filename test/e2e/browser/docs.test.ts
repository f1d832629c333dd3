// The user's documents in Chromium, under the pages' real CSP: each renders with nothing refused
// (no inline script or style attribute, no image), its links lead to served pages, and axe-core
// finds nothing serious.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { USER_DOCUMENTS } from '../../../src/pages/docs-routes.ts'
import { assertAccessible, newPerson, open, skipReason } from './browser.ts'
import { useBrowserEnvironment } from './environment.ts'

describe('the documentation in Chromium', { skip: skipReason }, () => {
  const env = useBrowserEnvironment({ http: { home: { demo: () => undefined, adminUrl: () => undefined } } })

  test('every user document renders under the CSP with nothing refused, and its links to this service answer', async () => {
    const page = await newPerson(env.browser)
    const refused: string[] = []
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(`${page.url()}: ${message.text()}`)
    })
    const index = await open(page, `${env.server.url}/docs/`)
    assert.equal(index.status(), 200)
    const names = USER_DOCUMENTS.map((path) => path.slice(path.lastIndexOf('/') + 1))
    assert.deepEqual(await page.locator('main li a').evaluateAll((links) => links.map((a) => a.getAttribute('href'))), names.map((name) => `/docs/${name}`))
    const linked = new Set<string>()
    for (const name of names) {
      const response = await open(page, `${env.server.url}/docs/${name}`)
      assert.equal(response.status(), 200, name)
      assert.ok((await page.locator('main h1').count()) === 1, `${name} has one heading`)
      for (const href of await page.locator('main a[href^="/"]').evaluateAll((links) => links.map((a) => a.getAttribute('href')!))) linked.add(href.split('#')[0]!)
      await assertAccessible(page, name)
    }
    for (const path of linked) assert.equal((await page.request.get(`${env.server.url}${path}`)).status(), 200, path)
    assert.deepEqual(refused, [], 'the CSP refused nothing')
  })
})
