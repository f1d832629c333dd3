// Issue 49, item 3: an app's own revocation webhooks in the developer console (its resource servers).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { rotateAppKeys } from '../../../src/domain/registry/apps.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { injectedTestServer, type TestServer } from '../../helpers/test-app.ts'
import { Browser, textOf } from '../../helpers/browser.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts'

describe("the console's revocation webhooks of an app", () => {
  let t: TestServer
  let receiver: WebhookReceiver
  before(async () => {
    t = await injectedTestServer()
    receiver = await startWebhookReceiver()
  })
  after(async () => {
    await receiver.close()
    await t.close()
  })

  async function developerWithApp() {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { owner: user })
    const browser = new Browser(t.app, `10.47.0.${Math.floor(Math.random() * 200)}`)
    await browser.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })
    return { app, browser, page: `/console/apps/${app.id}/webhooks` }
  }

  test('add shows the signing secret once; the CRC challenge verifies the receiver; the page shows what waits; remove', async () => {
    const { app, browser, page } = await developerWithApp()
    assert.match((await browser.get(`/console/apps/${app.id}`)).body, new RegExp(`href="${page}" id="revocation_webhooks"`))
    assert.match((await browser.get(page)).body, /No webhooks yet\./)
    const added = await browser.fill(page, page, { url: receiver.url })
    assert.equal(added.statusCode, 200, added.body)
    const secret = textOf(added.body, 'webhook_secret')
    assert.match(secret ?? '', /^whsec_/)
    assert.equal(added.headers['cache-control'], 'no-store')
    const listed = (await browser.get(page)).body
    assert.ok(!listed.includes(secret!), 'shown once')
    assert.match(listed, /not verified: nothing is sent until it answers the CRC challenge/)
    const [endpoint] = (await t.domain.stores.webhooks.list()).filter((e) => e.appId === app.id)
    assert.equal(endpoint?.url, receiver.url)

    receiver.secret = 'another secret'
    const refused = await browser.fill(page, `${page}/${endpoint!.id}/verify`, {})
    assert.equal(refused.statusCode, 400)
    assert.match(refused.body, /failed the CRC challenge/)
    receiver.secret = secret
    const verified = await browser.fill(page, `${page}/${endpoint!.id}/verify`, {})
    assert.equal(verified.statusCode, 200, verified.body)
    assert.match(verified.body, /answered the CRC challenge: events are sent to it/)

    await rotateAppKeys(t.domain, app.id)
    assert.match((await browser.get(page)).body, /Pending: 1\. Failed: 0\./, 'no delivery loop runs here: the event waits')

    const removed = await browser.fill(page, `${page}/${endpoint!.id}/remove`, {})
    assert.equal(removed.statusCode, 302)
    assert.match((await browser.get(page)).body, /No webhooks yet\./)
  })

  test("a URL that is not http(s) is refused on the page; another developer's app or webhook is 404", async () => {
    const { app, browser, page } = await developerWithApp()
    const bad = await browser.fill(page, page, { url: 'ftp://rs.example/hook' })
    assert.equal(bad.statusCode, 400)
    assert.match(bad.body, /url must be an http or https URL/)
    const other = await developerWithApp()
    const theirs = await other.browser.fill(other.page, other.page, { url: receiver.url })
    assert.equal(theirs.statusCode, 200)
    const [endpoint] = (await t.domain.stores.webhooks.list()).filter((e) => e.appId === other.app.id)
    assert.equal((await browser.get(other.page)).statusCode, 404)
    assert.equal((await browser.fill(page, `${page}/${endpoint!.id}/remove`, {})).statusCode, 404, 'their webhook through my app')
    assert.equal((await t.domain.stores.webhooks.list()).filter((e) => e.appId === other.app.id).length, 1)
    void app
  })
})
