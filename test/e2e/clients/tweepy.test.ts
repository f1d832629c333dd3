// docs/clients.md's tweepy recipe: examples/clients/tweepy_oauth1.py (three-legged and PIN) and
// tweepy_oauth2.py (PKCE, then tweepy.Client), Debian's python3-tweepy, against `latchkey serve --test`;
// the person's consent by the test mode's control calls. Checks what each program printed.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { REPO_ROOT } from '../../helpers/cli.ts'
import { allowOAuth1, allowOAuth2, createRecipeApp, runRecipe, startTestMode, toolSkip, type RecipeApp, type TestModeServer } from './test-mode-process.ts'

const PYTHON = '/usr/bin/python3'
const example = (name: string) => join(REPO_ROOT, 'examples/clients', name)
const skip = toolSkip(PYTHON, ['-c', 'import tweepy'], `${PYTHON} cannot import tweepy (apt-get install python3-tweepy)`)
const CALLBACK = 'https://client.example/cb'
const PERSON = 'tweepy_person'

describe('tweepy against serve --test', { skip }, () => {
  let server: TestModeServer
  let app: RecipeApp
  before(async () => {
    server = await startTestMode()
    app = await createRecipeApp(server, PERSON, CALLBACK)
  })
  after(() => server?.stop())

  /** The token in the link the program printed, answered by the person through the control call. */
  const allowLink = async (url: string) => {
    assert.ok(url.startsWith(`${server.url}/oauth/authorize?oauth_token=`), url)
    return allowOAuth1(server, PERSON, new URL(url).searchParams.get('oauth_token')!)
  }

  test('OAuth1UserHandler, three-legged: the callback URL typed back, verify_credentials names the person', { timeout: 60_000 }, async () => {
    const printed = await runRecipe(PYTHON, [example('tweepy_oauth1.py'), server.url, app.consumerKey, app.consumerSecret, CALLBACK], allowLink)
    assert.equal(printed.SCREEN_NAME, PERSON)
  })

  test('OAuth1UserHandler, PIN: the PIN typed back, verify_credentials names the person', { timeout: 60_000 }, async () => {
    const printed = await runRecipe(PYTHON, [example('tweepy_oauth1.py'), server.url, app.consumerKey, app.consumerSecret, 'oob'], async (url) => {
      const pin = await allowLink(url)
      assert.match(pin, /^\d{7}$/)
      return pin
    })
    assert.equal(printed.SCREEN_NAME, PERSON)
  })

  test('OAuth2UserHandler with PKCE, then tweepy.Client.get_me with the user token', { timeout: 60_000 }, async () => {
    const printed = await runRecipe(PYTHON, [example('tweepy_oauth2.py'), server.url, app.clientId, app.clientSecret, CALLBACK], async (url) => {
      assert.ok(url.startsWith(`${server.url}/i/oauth2/authorize?`), url)
      assert.equal(new URL(url).searchParams.get('code_challenge_method'), 'S256')
      return allowOAuth2(server, PERSON, url)
    })
    assert.equal(printed.USERNAME, PERSON)
  })
})
