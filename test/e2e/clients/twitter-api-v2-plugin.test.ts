// docs/clients.md's twitter-api-v2 recipe: the plugin the package exports (`latchkey/twitter-api-v2`,
// loaded by that name from the built package, as a user's code loads it) points twitter-api-v2 at a
// `latchkey serve --test` process: OAuth 1.0a three-legged and OAuth 2.0 with PKCE, each ending in a
// call that names the person.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { Agent } from 'node:http'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { TwitterApi } from 'twitter-api-v2'
import { REPO_ROOT } from '../../helpers/cli.ts'
import { allowOAuth1, allowOAuth2, createRecipeApp, startTestMode, type RecipeApp, type TestModeServer } from './test-mode-process.ts'

const CALLBACK = 'https://client.example/cb'
// A name in a variable: the bundler leaves the import to Node, which resolves it through package.json's exports.
const PACKAGE_PATH = 'latchkey/twitter-api-v2'
type PluginModule = typeof import('../../../src/clients/twitter-api-v2.ts')

describe('twitter-api-v2 with latchkey/twitter-api-v2, against serve --test', () => {
  let server: TestModeServer
  let app: RecipeApp
  let plugin: PluginModule
  before(async () => {
    plugin = (await import(PACKAGE_PATH)) as PluginModule
    server = await startTestMode()
    app = await createRecipeApp(server, 'tw_v2_person', CALLBACK)
  })
  after(() => server?.stop())

  test('the built module loads nothing of twitter-api-v2 at run time', () => {
    const built = readFileSync(join(REPO_ROOT, 'dist/clients/twitter-api-v2.js'), 'utf8')
    assert.doesNotMatch(built, /from ['"]twitter-api-v2['"]|require\(/)
  })

  test('OAuth 1.0a: generateAuthLink, the consent, login, v1.verifyCredentials names the person', async () => {
    const client = new TwitterApi({ appKey: app.consumerKey, appSecret: app.consumerSecret }, { plugins: [plugin.latchkey(server.url)], httpAgent: new Agent() })
    const link = await client.generateAuthLink(CALLBACK)
    assert.ok(link.oauth_token, JSON.stringify(link))
    const authorize = plugin.rebaseUrl(link.url, server.url)
    assert.ok(authorize.startsWith(`${server.url}/oauth/authenticate?oauth_token=`), authorize)
    const callback = new URL(await allowOAuth1(server, 'tw_v2_person', link.oauth_token))
    const pending = new TwitterApi(
      { appKey: app.consumerKey, appSecret: app.consumerSecret, accessToken: link.oauth_token, accessSecret: link.oauth_token_secret },
      { plugins: [plugin.latchkey(server.url)], httpAgent: new Agent() },
    )
    const login = await pending.login(callback.searchParams.get('oauth_verifier')!)
    assert.equal(login.screenName, 'tw_v2_person')
    const me = await login.client.v1.verifyCredentials()
    assert.equal(me.screen_name, 'tw_v2_person')
  })

  test('OAuth 2.0 with PKCE: generateOAuth2AuthLink points at Latchkey, loginWithOAuth2, v2.me names the person', async () => {
    const client = new TwitterApi({ clientId: app.clientId, clientSecret: app.clientSecret }, { plugins: [plugin.latchkey(server.url)], httpAgent: new Agent() })
    const link = client.generateOAuth2AuthLink(CALLBACK, { scope: ['tweet.read', 'users.read', 'offline.access'] })
    assert.ok(link.url.startsWith(`${server.url}/i/oauth2/authorize?`), link.url)
    const callback = new URL(await allowOAuth2(server, 'tw_v2_person', link.url))
    assert.equal(callback.searchParams.get('state'), link.state)
    const login = await client.loginWithOAuth2({ code: callback.searchParams.get('code')!, codeVerifier: link.codeVerifier, redirectUri: CALLBACK })
    assert.equal((await login.client.v2.me()).data.username, 'tw_v2_person')
  })
})
