// Issue 32: the console's OAuth tool signs a request of the developer's app; the curl command it
// gives is run for real against a listening server, which must accept it.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { startTestServer, type TestServer } from '../../helpers/test-app.ts'
import { Browser, textOf } from '../../helpers/browser.ts'

const run = promisify(execFile)
const decoded = (text: string | undefined) => (text ?? '').replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>')

describe('the OAuth tool', () => {
  let t: TestServer
  before(async () => {
    t = await startTestServer()
  })
  after(() => t.close())

  async function developer() {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { owner: user })
    const browser = new Browser(t.app)
    assert.equal((await browser.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })).statusCode, 302)
    return { user, app, browser, tool: `/console/apps/${app.id}/oauth-tool` }
  }

  const curlOf = async (command: string) => (await run('sh', ['-c', `${command} --silent --show-error`])).stdout

  test("with the developer's token: a GET of verify_credentials whose curl command the server accepts", async () => {
    const { user, app, browser, tool } = await developer()
    const form = await browser.get(tool)
    assert.equal(form.statusCode, 200)
    assert.match(form.body, /value="http:\/\/[^"]+\/1\.1\/account\/verify_credentials\.json"/, 'the form starts at verify_credentials on this service')
    const signed = await browser.fill(tool, tool, { method: 'GET', url: `${t.url}/1.1/account/verify_credentials.json`, parameters: 'include_email=false', with_token: 'on' })
    assert.equal(signed.statusCode, 200, signed.body)
    const baseString = decoded(textOf(signed.body, 'base_string'))
    assert.match(baseString, /^GET&http%3A%2F%2F127\.0\.0\.1%3A\d+%2F1\.1%2Faccount%2Fverify_credentials\.json&include_email%3Dfalse%26oauth_consumer_key%3D/)
    assert.match(decoded(textOf(signed.body, 'authorization_header')), new RegExp(`^OAuth oauth_consumer_key="${app.consumerKey}", oauth_nonce="`))
    assert.doesNotMatch(signed.body, new RegExp(app.consumerSecret), 'the consumer secret is not on the page')
    const answer = JSON.parse(await curlOf(decoded(textOf(signed.body, 'curl_command')))) as { screen_name?: string }
    assert.equal(answer.screen_name, user.screenName)
  })

  test('without a token: a POST of request_token with oauth_callback, whose curl command gets a request token', async () => {
    const { browser, tool } = await developer()
    const signed = await browser.fill(tool, tool, { method: 'POST', url: `${t.url}/oauth/request_token`, parameters: 'oauth_callback=oob', with_token: '' })
    assert.equal(signed.statusCode, 200, signed.body)
    assert.doesNotMatch(decoded(textOf(signed.body, 'authorization_header')), /oauth_token=/)
    assert.match(await curlOf(decoded(textOf(signed.body, 'curl_command'))), /^oauth_token=[^&]+&oauth_token_secret=[^&]+&oauth_callback_confirmed=true$/)
  })

  test("a URL that is none, or an oauth_ parameter that is the tool's, is said on the form; another developer's app is a 404", async () => {
    const { browser, tool } = await developer()
    const badUrl = await browser.fill(tool, tool, { method: 'GET', url: 'not a url', parameters: '' })
    assert.equal(badUrl.statusCode, 400)
    assert.match(badUrl.body, /the URL must be absolute/)
    const ours = await browser.fill(tool, tool, { method: 'GET', url: `${t.url}/healthz`, parameters: 'oauth_nonce=mine' })
    assert.equal(ours.statusCode, 400)
    assert.match(ours.body, /only oauth_callback and oauth_verifier are yours to add/)
    assert.match(ours.body, /oauth_nonce=mine/, 'what was typed stays in the form')
    const fine = await browser.fill(tool, tool, { method: 'GET', url: `${t.url}/healthz`, parameters: '' })
    assert.equal(fine.statusCode, 200, 'the same form, corrected')
    const stranger = await developer()
    assert.equal((await stranger.browser.get(tool)).statusCode, 404)
  })
})
