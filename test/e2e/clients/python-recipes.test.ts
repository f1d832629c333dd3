// docs/clients.md's Python recipes — tweepy, requests-oauthlib and Authlib, each from Debian's
// package — run as a person runs them (examples/clients/*_oauth1.py: three-legged and PIN;
// *_oauth2.py: PKCE, then /2/users/me) against `latchkey serve --test`, the person's consent given
// by the test mode's control calls. Checks what each program printed.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { REPO_ROOT } from '../../helpers/cli.ts'
import { allowOAuth1, allowOAuth2, createRecipeApp, runRecipe, startTestMode, toolSkip, type RecipeApp, type TestModeServer } from './test-mode-process.ts'

const PYTHON = '/usr/bin/python3'
const CALLBACK = 'https://client.example/cb'

interface Recipe {
  client: string
  /** What Python imports, and the Debian package that gives it. */
  module: string
  debian: string
  /** The examples' file names' start: <prefix>_oauth1.py and <prefix>_oauth2.py. */
  prefix: string
  /** The library's classes the recipe uses, for the tests' names. */
  oauth1: string
  oauth2: string
  /** What each flow needs on plain HTTP to loopback (docs/clients.md says why). */
  env: { oauth1?: Record<string, string>; oauth2?: Record<string, string> }
}

const RECIPES: Recipe[] = [
  { client: 'tweepy', module: 'tweepy', debian: 'python3-tweepy', prefix: 'tweepy', oauth1: 'OAuth1UserHandler', oauth2: 'OAuth2UserHandler, then tweepy.Client.get_me', env: {} },
  // oauthlib refuses an http:// token URL for OAuth 2.0 unless told (its OAuth 1.0a client does not check).
  { client: 'requests-oauthlib', module: 'requests_oauthlib', debian: 'python3-requests-oauthlib', prefix: 'requests_oauthlib', oauth1: 'OAuth1Session', oauth2: 'OAuth2Session', env: { oauth2: { OAUTHLIB_INSECURE_TRANSPORT: '1' } } },
  // Authlib's OAuth 1.0a client refuses http:// URLs unless told (its OAuth 2.0 client does not check).
  { client: 'Authlib', module: 'authlib', debian: 'python3-authlib', prefix: 'authlib', oauth1: 'OAuth1Session', oauth2: 'OAuth2Session', env: { oauth1: { AUTHLIB_INSECURE_TRANSPORT: '1' } } },
]

for (const recipe of RECIPES) {
  const skip = toolSkip(PYTHON, ['-c', `import ${recipe.module}`], `${PYTHON} cannot import ${recipe.module} (apt-get install ${recipe.debian})`)
  const example = (flow: 'oauth1' | 'oauth2') => join(REPO_ROOT, 'examples/clients', `${recipe.prefix}_${flow}.py`)
  const person = `${recipe.module.slice(0, 8)}_person`

  describe(`${recipe.client} against serve --test`, { skip }, () => {
    let server: TestModeServer
    let app: RecipeApp
    before(async () => {
      server = await startTestMode()
      app = await createRecipeApp(server, person, CALLBACK)
    })
    after(() => server?.stop())

    /** The token in the link the program printed, answered by the person through the control call. */
    const allowLink = async (url: string) => {
      assert.ok(url.startsWith(`${server.url}/oauth/authorize?oauth_token=`), url)
      return allowOAuth1(server, person, new URL(url).searchParams.get('oauth_token')!)
    }

    test(`${recipe.oauth1}, three-legged: the callback URL typed back, verify_credentials names the person`, { timeout: 60_000 }, async () => {
      const printed = await runRecipe(PYTHON, [example('oauth1'), server.url, app.consumerKey, app.consumerSecret, CALLBACK], allowLink, recipe.env.oauth1)
      assert.equal(printed.SCREEN_NAME, person)
    })

    test(`${recipe.oauth1}, PIN: the PIN typed back, verify_credentials names the person`, { timeout: 60_000 }, async () => {
      const typed = async (url: string) => {
        const pin = await allowLink(url)
        assert.match(pin, /^\d{7}$/)
        return pin
      }
      const printed = await runRecipe(PYTHON, [example('oauth1'), server.url, app.consumerKey, app.consumerSecret, 'oob'], typed, recipe.env.oauth1)
      assert.equal(printed.SCREEN_NAME, person)
    })

    test(`${recipe.oauth2} with PKCE (S256), then /2/users/me with the user token`, { timeout: 60_000 }, async () => {
      const consented = async (url: string) => {
        assert.ok(url.startsWith(`${server.url}/i/oauth2/authorize?`), url)
        assert.equal(new URL(url).searchParams.get('code_challenge_method'), 'S256')
        return allowOAuth2(server, person, url)
      }
      const printed = await runRecipe(PYTHON, [example('oauth2'), server.url, app.clientId, app.clientSecret, CALLBACK], consented, recipe.env.oauth2)
      assert.equal(printed.USERNAME, person)
    })
  })
}
