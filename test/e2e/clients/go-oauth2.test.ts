// docs/clients.md's Go recipe: examples/clients/go-oauth2 (golang.org/x/oauth2, Debian's
// golang-golang-x-oauth2-dev, built offline in GOPATH mode) against `latchkey serve --test`: the
// authorization code with PKCE to /2/users/me, and an app-only bearer token by client credentials.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { REPO_ROOT } from '../../helpers/cli.ts'
import { allowOAuth2, createRecipeApp, runRecipe, startTestMode, toolSkip, type RecipeApp, type TestModeServer } from './test-mode-process.ts'

const SOURCE = join(REPO_ROOT, 'examples/clients/go-oauth2')
/** Go without the module proxy: GOPATH mode over Debian's packaged sources. */
const GO_ENV = { GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOFLAGS: '' }
const skip = toolSkip('go', ['list', 'golang.org/x/oauth2/clientcredentials'], 'no go command or no golang.org/x/oauth2 in GOPATH (apt-get install golang-go golang-golang-x-oauth2-dev)', GO_ENV)
const CALLBACK = 'https://client.example/cb'
const PERSON = 'go_person'

describe('golang.org/x/oauth2 against serve --test', { skip }, () => {
  let server: TestModeServer
  let app: RecipeApp
  let dir: string
  let program: string
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-go-recipe-'))
    program = join(dir, 'go-oauth2')
    const built = spawnSync('go', ['build', '-o', program, '.'], { cwd: SOURCE, env: { ...process.env, ...GO_ENV }, encoding: 'utf8' })
    assert.equal(built.status, 0, `go build: ${built.stderr}`)
    server = await startTestMode()
    app = await createRecipeApp(server, PERSON, CALLBACK)
  })
  after(async () => {
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  test('authorization code with PKCE (S256 by hand): the code exchanged, /2/users/me names the person', { timeout: 60_000 }, async () => {
    const printed = await runRecipe(program, ['pkce', server.url, app.clientId, app.clientSecret, CALLBACK], async (url) => {
      assert.ok(url.startsWith(`${server.url}/i/oauth2/authorize?`), url)
      assert.equal(new URL(url).searchParams.get('code_challenge_method'), 'S256')
      return allowOAuth2(server, PERSON, url)
    })
    assert.equal(printed.USERNAME, PERSON)
  })

  test('client credentials at /oauth2/token: a bearer token that rate_limit_status accepts', { timeout: 60_000 }, async () => {
    const printed = await runRecipe(program, ['app', server.url, app.consumerKey, app.consumerSecret], () => Promise.reject(new Error('no consent in the app-only flow')))
    assert.deepEqual(printed, { TOKEN_TYPE: 'Bearer', RATE_LIMIT_STATUS: '200' })
  })
})
