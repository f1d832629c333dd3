// docs/clients.md's requests-oauthlib recipe: examples/clients/requests_orequests_oauthlib_oauth1.py (three-legged
// and PIN) and requests_orequests_oauthlib_oauth2.py (PKCE), Debian's python3-requests-oauthlib, against `latchkey serve --test`;
// the person's consent by the test mode's control calls. Checks what each program printed.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { REPO_ROOT } from '../../helpers/cli.ts'
import { allowOAuth1, allowOAuth2, createRecipeApp, runRecipe, startTestMode, toolSkip, type RecipeApp, type TestModeServer } from './test-mode-process.ts'

const PYTHON = '/usr/bin/python3'
const example = (name: string) => join(REPO_ROOT, 'examples/clients', name)
const skip = toolSkip(PYTHON, ['-c', 'import requests_oauthlib'], `${PYTHON} cannot import requests_oauthlib (apt-get install python3-requests-oauthlib)`)
const CALLBACK = 'https://client.example/cb'
const PERSON = 'oauthlib_person'
// oauthlib refuses an http:// token URL for OAuth 2.0 unless told (its OAuth 1.0a client does not check).
const LOOPBACK = { OAUTHLIB_INSECURE_TRANSPORT: '1' }

describe('requests-oauthlib against serve --test', { skip }, () => {
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

  test('OAuth1Session, three-legged: the callback URL typed back, verify_credentials names the person', { timeout: 60_000 }, async () => {
    const printed = await runRecipe(PYTHON, [example('requests_oauthlib_oauth1.py'), server.url, app.consumerKey, app.consumerSecret, CALLBACK], allowLink)
    assert.equal(printed.SCREEN_NAME, PERSON)
  })

  test('OAuth1Session, PIN: the PIN typed back, verify_credentials names the person', { timeout: 60_000 }, async () => {
    const printed = await runRecipe(PYTHON, [example('requests_oauthlib_oauth1.py'), server.url, app.consumerKey, app.consumerSecret, 'oob'], async (url) => {
      const pin = await allowLink(url)
      assert.match(pin, /^\d{7}$/)
      return pin
    })
    assert.equal(printed.SCREEN_NAME, PERSON)
  })

  test('OAuth2Session with PKCE (S256), then /2/users/me with the user token', { timeout: 60_000 }, async () => {
    const printed = await runRecipe(PYTHON, [example('requests_oauthlib_oauth2.py'), server.url, app.clientId, app.clientSecret, CALLBACK], async (url) => {
      assert.ok(url.startsWith(`${server.url}/i/oauth2/authorize?`), url)
      assert.equal(new URL(url).searchParams.get('code_challenge_method'), 'S256')
      return allowOAuth2(server, PERSON, url)
    }, LOOPBACK)
    assert.equal(printed.USERNAME, PERSON)
  })
})
