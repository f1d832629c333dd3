// An app's pages in the console (src/pages/console/app-routes.ts): what each action shows, what a
// signed-out visitor meets, choices that are not numbers, and a database that cannot be written.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import { isPostgresUrl } from '../../../src/storage/urls.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { whileDatabaseLocked } from '../../helpers/locked-database.ts'
import { injectedTestServer, testClock, type TestServer } from '../../helpers/test-app.ts'
import { Browser, csrfOf, textOf } from '../../helpers/browser.ts'

let address = 0
const nextAddress = () => `10.46.${Math.floor(++address / 250)}.${address % 250}`

/** The section that shows a secret once: its heading, each value's label and id, and the note under them. */
function revealedOf(page: string) {
  const section = /<section aria-labelledby="revealed"[^>]*>([\s\S]*?)<\/section>/.exec(page)?.[1]
  if (!section) return undefined
  return {
    heading: /<h2 id="revealed">([^<]*)<\/h2>/.exec(section)?.[1],
    values: [...section.matchAll(/<strong>([^<]*)<\/strong><code class="secret" id="([^"]+)">/g)].map((m) => [m[1], m[2]]),
    note: [...section.matchAll(/<p>([^<]*)<\/p>/g)].map((m) => m[1]).at(-1),
  }
}

/** The sentence shown at the top of the app's page. */
const alertOf = (page: string) => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(page)?.[1]

describe("an app's console pages", () => {
  const clock = testClock()
  const logLines: string[] = []
  let t: TestServer
  before(async () => {
    t = await injectedTestServer({ clock, logLines })
  })
  after(() => t.close())

  const errorsLogged = (from: number) => logLines.slice(from).map((line) => JSON.parse(line) as { level: number }).filter((line) => line.level >= 50)

  async function developerWithApp(settings: Parameters<typeof makeApp>[1] = {}) {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { owner: user, ...settings })
    const browser = new Browser(t.app, nextAddress())
    assert.equal((await browser.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })).statusCode, 302)
    return { user, app, browser, page: `/console/apps/${app.id}` }
  }

  test('each secret is shown under its heading, with its labels and what to do with it', async () => {
    const { user, browser, page } = await developerWithApp()
    const owner = await browser.fill(page, `${page}/owner-token`, {})
    assert.deepEqual(revealedOf(owner.body), {
      heading: 'Your access token and secret',
      values: [
        ['Access token', 'access_token'],
        ['Access token secret', 'access_token_secret'],
      ],
      note: `They act as @${user.screenName} with this app. Copy the secret now: this page is the only place it is shown.`,
    })
    const bearer = await browser.fill(page, `${page}/bearer-token`, {})
    assert.deepEqual(revealedOf(bearer.body), {
      heading: 'The app&#39;s bearer token',
      values: [['Bearer token', 'bearer_token']],
      note: 'It stays the same until you invalidate it. Keep it as secret as the consumer secret.',
    })
    const client = await browser.fill(page, `${page}/oauth2`, { oauth2: 'confidential' })
    assert.equal(alertOf(client.body), undefined)
    assert.deepEqual(revealedOf(client.body), {
      heading: 'Your OAuth 2.0 client secret',
      values: [
        ['Client id', 'oauth2_client_id'],
        ['Client secret', 'oauth2_client_secret'],
      ],
      note: 'Copy the client secret now: this page is the only place it is shown. If you lose it, regenerate it.',
    })
    const keys = await browser.fill(page, `${page}/keys`, {})
    assert.equal(keys.headers.location, page)
    assert.deepEqual(revealedOf((await browser.get(page)).body), {
      heading: 'Your consumer key and secret',
      values: [
        ['Consumer key', 'consumer_key'],
        ['Consumer secret', 'consumer_secret'],
      ],
      note: 'Copy the consumer secret now: it is not shown again. If you lose it, regenerate the keys.',
    })
    assert.equal(revealedOf((await browser.get(page)).body), undefined, 'once')
  })

  test('each action that shows no secret says what it did', async () => {
    const { browser, page } = await developerWithApp()
    await browser.fill(page, `${page}/owner-token`, {})
    await browser.fill(page, `${page}/bearer-token`, {})
    const cases: Array<[string, Record<string, string>, string]> = [
      ['owner-token/invalidate', {}, 'Your access tokens for this app no longer work.'],
      ['bearer-token/invalidate', {}, 'The bearer token no longer works.'],
      ['oauth2', { oauth2: 'public' }, 'User authentication settings saved.'],
      ['oauth2/secret', {}, 'Only a confidential client has a secret.'],
      ['oauth2', { oauth2: 'off' }, 'OAuth 2.0 is off.'],
    ]
    for (const [action, fields, said] of cases) {
      const answer = await browser.fill(page, `${page}/${action}`, fields)
      assert.equal(alertOf(answer.body), said, action)
      assert.equal(revealedOf(answer.body), undefined, `${action}: no secret shown`)
    }
    assert.equal((await t.domain.stores.oauth2Clients.findByAppId(page.split('/').pop()!)), undefined)
  })

  test('a public client is kept as public, with no secret to show', async () => {
    const { app, browser, page } = await developerWithApp()
    const answer = await browser.fill(page, `${page}/oauth2`, { oauth2: 'public' })
    assert.equal(answer.statusCode, 200)
    assert.equal((await t.domain.stores.oauth2Clients.findByAppId(app.id))?.clientSecret ?? null, null)
    assert.doesNotMatch(answer.body, /class="secret"/)
  })

  test('a refused edit shows the form again as typed', async () => {
    const { browser, page } = await developerWithApp()
    const answer = await browser.fill(page, page, { name: 'Renamed as typed', description: 'typed description', callbacks: 'not a url', type: 'web', access_level: 'read' })
    assert.equal(answer.statusCode, 400)
    assert.match(answer.body, /value="Renamed as typed"/)
    assert.match(answer.body, />not a url</)
  })

  test('a grace period that is not a plain number of seconds is refused, and the keys and secret stay', async () => {
    const { app, browser, page } = await developerWithApp()
    await browser.fill(page, `${page}/oauth2`, { oauth2: 'confidential' })
    const client = await t.domain.stores.oauth2Clients.findByAppId(app.id)
    for (const grace of [' 60', '60 ', '0x3c', '6e1']) {
      assert.equal((await browser.fill(page, `${page}/keys`, { grace })).statusCode, 400, `keys, grace "${grace}"`)
      assert.equal((await browser.fill(page, `${page}/oauth2/secret`, { client_secret_grace: grace })).statusCode, 400, `client secret, grace "${grace}"`)
    }
    assert.equal((await t.domain.stores.apps.findById(app.id))?.consumerKey, app.consumerKey)
    assert.deepEqual(await t.domain.stores.oauth2Clients.findByAppId(app.id), client)
    // The twin: a plain number is taken.
    assert.equal((await browser.fill(page, `${page}/keys`, { grace: '60' })).statusCode, 302)
  })

  test("an app page visited long after signing in, with no secret waiting, is shown without asking for the password", async () => {
    const { browser, page, app } = await developerWithApp()
    clock.advance(11 * 60_000)
    const answer = await browser.get(page)
    assert.equal(answer.statusCode, 200)
    assert.doesNotMatch(answer.body, /Confirm your password/)
    assert.match(answer.body, new RegExp(app.consumerKey))
  })

  test('the OAuth tool starts as a GET of verify_credentials on this service, signed with the developer\'s token, with no parameters', async () => {
    const { browser, page } = await developerWithApp()
    const tool = await browser.get(`${page}/oauth-tool`)
    assert.match(tool.body, /<option value="GET" selected>GET<\/option><option value="POST">POST<\/option>/)
    assert.match(tool.body, /value="http:\/\/localhost(:\d+)?\/1\.1\/account\/verify_credentials\.json"/)
    assert.match(tool.body, /<textarea id="parameters" name="parameters" aria-describedby="parameters_hint"><\/textarea>/)
    assert.match(tool.body, /id="with_token" name="with_token" type="checkbox" value="on" checked>/)
  })

  test('the OAuth tool: a form without a URL shows the URL field empty; without parameters it signs none of its own', async () => {
    const { browser, page } = await developerWithApp()
    const form = await browser.get(`${page}/oauth-tool`)
    const noUrl = await browser.post(`${page}/oauth-tool`, { csrf_token: csrfOf(form.body), method: 'GET', parameters: '' })
    assert.equal(noUrl.statusCode, 400)
    assert.match(noUrl.body, /<input id="url" name="url"[^>]* value=""/)
    const noParameters = await browser.post(`${page}/oauth-tool`, { csrf_token: csrfOf(form.body), method: 'GET', url: 'https://api.example/1.1/x.json' })
    assert.equal(noParameters.statusCode, 200)
    const baseString = textOf(noParameters.body, 'base_string') ?? ''
    assert.match(baseString, /^GET&https%3A%2F%2Fapi\.example%2F1\.1%2Fx\.json&oauth_consumer_key%3D/)
  })

  test('the OAuth tool with the token of a suspended app says why on the form, as typed', async () => {
    const { browser, page, app } = await developerWithApp()
    const form = await browser.get(`${page}/oauth-tool`)
    await updateApp(t.domain, app.id, { isSuspended: true }, { by: 'owner' })
    const answer = await browser.post(`${page}/oauth-tool`, { csrf_token: csrfOf(form.body), method: 'POST', url: 'https://api.example/1.1/x.json', parameters: 'a=1', with_token: 'on' })
    assert.equal(answer.statusCode, 400)
    assert.match(answer.body, /is suspended: lift the suspension first/)
    assert.match(answer.body, /<option value="GET">GET<\/option><option value="POST" selected>POST<\/option>/)
    assert.match(answer.body, new RegExp(`<title>OAuth tool: ${app.name} · Latchkey</title>`))
    assert.match(answer.body, />a=1<\/textarea>/)
  })

  test('a signed-out visitor of each page is asked to sign in and brought back to it; a signed-out form leads to the console; nothing fails', async () => {
    const from = logLines.length
    const { app } = await developerWithApp()
    const page = `/console/apps/${app.id}`
    const back: Array<[string, string]> = [
      [page, page],
      [`${page}/delete`, page],
      [`${page}/failures`, `${page}/failures`],
      [`${page}/oauth-tool`, `${page}/oauth-tool`],
    ]
    for (const [path, next] of back) {
      const answer = await new Browser(t.app, nextAddress()).get(path)
      assert.equal(answer.statusCode, 200, path)
      assert.match(answer.body, new RegExp(`<input type="hidden" name="next" value="${next}">`), path)
    }
    const visitor = new Browser(t.app, nextAddress())
    const csrf = csrfOf((await visitor.get('/console')).body)
    for (const action of ['', '/suspend', '/unsuspend', '/delete', '/keys', '/owner-token', '/owner-token/invalidate', '/bearer-token', '/bearer-token/invalidate', '/oauth2', '/oauth2/secret', '/oauth-tool']) {
      const answer = await visitor.post(`${page}${action}`, { csrf_token: csrf, oauth2: 'confidential', name: 'Taken over' })
      assert.equal(answer.statusCode, 302, action)
      assert.equal(answer.headers.location, '/console', action)
    }
    assert.deepEqual(await t.domain.stores.apps.findById(app.id), app, 'nothing changed')
    assert.deepEqual(errorsLogged(from), [])
  })

  test('a database that cannot be written gives the plain error page on every action, never the app page with a message', async (ctx) => {
    if (isPostgresUrl(t.dbPath)) return ctx.skip('locks the SQLite file')
    const { browser, page } = await developerWithApp()
    const csrf = csrfOf((await browser.get(page)).body)
    await whileDatabaseLocked(t.dbPath, async () => {
      const cases: Array<[string, Record<string, string>]> = [
        ['', { name: 'Locked', callbacks: 'https://client.example/cb', type: 'web', access_level: 'read' }],
        ['/suspend', {}],
        ['/owner-token', {}],
        ['/oauth-tool', { method: 'GET', url: 'https://api.example/1.1/x.json', parameters: '', with_token: 'on' }],
      ]
      for (const [action, fields] of cases) {
        const answer = await browser.post(`${page}${action}`, { csrf_token: csrf, ...fields })
        assert.equal(answer.statusCode, 503, action)
        assert.match(answer.body, /Something went wrong/, action)
        assert.equal(alertOf(answer.body), undefined, action)
      }
    })
  })
})

describe('the OAuth 2.0 choices ask for the password like the other actions that show a secret', () => {
  const clock = testClock()
  let t: TestServer
  before(async () => {
    t = await injectedTestServer({ clock })
  })
  after(() => t.close())

  for (const [action, fields] of [
    ['oauth2', { oauth2: 'confidential' }],
    ['oauth2/secret', {}],
  ] as const) {
    test(`${action}: asked for the password when it is 10 minutes old`, async () => {
      const { user, password } = await makeUser(t.domain)
      const app = await makeApp(t.domain, { owner: user })
      const browser = new Browser(t.app, nextAddress())
      await browser.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })
      clock.advance(10 * 60_000 + 1000)
      const asked = await browser.fill(`/console/apps/${app.id}`, `/console/apps/${app.id}/${action}`, fields)
      assert.equal(asked.statusCode, 200)
      assert.match(asked.body, /Confirm your password/)
      assert.equal(await t.domain.stores.oauth2Clients.findByAppId(app.id), undefined, 'nothing done yet')
      assert.equal(textOf(asked.body, 'oauth2_client_secret'), undefined)
    })
  }
})
