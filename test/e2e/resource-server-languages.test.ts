// The example APIs of docs/check-request.md — Python, Go and Node.js, each checking every request
// with POST /latchkey/check-request — run as their own processes, as a team would run them, with
// requests signed by an independent OAuth 1.0a library for their public URL.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { promisify } from 'node:util'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { AppRecord } from '../../src/storage/records.ts'
import { issueEveryCredential, makeApp, type EveryCredential } from '../helpers/fixtures.ts'
import { send, signRequest, type SignOptions } from '../helpers/oauth1-client.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'
import { startExample, type ExampleProcess } from '../helpers/example-process.ts'

const PUBLIC_URL = 'https://api.example.org'
const DIR = 'examples/resource-servers'

/** Builds the Go example first: `go run` would leave its compiled child running when it is stopped. */
async function goBinary(env: NodeJS.ProcessEnv): Promise<string> {
  const binary = join(env.HOME!, 'api')
  await promisify(execFile)('/usr/bin/go', ['build', '-o', binary, `${DIR}/api.go`], { env })
  return binary
}

/** Debian's Python (python3-requests, .ci/run) and Go (golang-go). */
const LANGUAGES: Array<{ name: string; needs: string; command: (env: NodeJS.ProcessEnv) => Promise<[string, string[]]> }> = [
  { name: 'Python', needs: '/usr/bin/python3', command: async () => ['/usr/bin/python3', [`${DIR}/api.py`]] },
  { name: 'Go', needs: '/usr/bin/go', command: async (env) => [await goBinary(env), []] },
  { name: 'Node.js', needs: process.execPath, command: async () => [process.execPath, [`${DIR}/api.mjs`]] },
]

/** The caller as each example answers it: the check's own fields (Python, Go) or the Node verifier's. */
const kindOf = (json: { caller: { token_kind?: string; tokenKind?: string } }) => json.caller.token_kind ?? json.caller.tokenKind

/** Missing tools fail the run in CI, where .ci/run installs them; elsewhere the language is skipped. */
const skipWithout = (path: string): string | false => (existsSync(path) || process.env.CI === 'true' ? false : `${path} is not installed`)

/** The example's environment: Go builds into a cache of its own. */
function exampleEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const goHome = mkdtempSync(join(tmpdir(), 'latchkey-go-'))
  return { PATH: process.env.PATH ?? '', HOME: goHome, GOCACHE: join(goHome, 'cache'), GO111MODULE: 'off', ...env }
}

for (const language of LANGUAGES) {
  describe(`the ${language.name} example API`, { skip: skipWithout(language.needs), timeout: 120_000 }, () => {
    let latchkey: TestServer
    let resourceServer: AppRecord
    let alice: EveryCredential
    let example: ExampleProcess

    before(async () => {
      latchkey = await startTestServer()
      resourceServer = await makeApp(latchkey.domain, { isResourceServer: true })
      alice = await issueEveryCredential(latchkey.domain)
      const env = exampleEnv({
        LATCHKEY_URL: latchkey.url,
        LATCHKEY_CLIENT_ID: resourceServer.consumerKey,
        LATCHKEY_CLIENT_SECRET: resourceServer.consumerSecret,
        PUBLIC_URL,
        PORT: '0',
      })
      const [command, args] = await language.command(env)
      example = await startExample(command, args, env)
    })
    after(async () => {
      await example?.stop()
      await latchkey?.close()
    })

    /** Signed for the API's public URL, sent to where the example listens (as behind a TLS proxy). */
    const signed = (path: string, options: Omit<SignOptions, 'url' | 'consumer'>) => {
      const request = signRequest({ consumer: alice.consumer, token: alice.token, ...options, url: `${PUBLIC_URL}${path}` })
      return () => send({ ...request, url: `${example.url}${path}` })
    }

    test('a signed POST with a query and a form body: hello, person', async () => {
      const answer = await signed('/1.1/statuses/update.json?trim_user=1', { method: 'POST', body: { status: 'Hello Ladies + Gentlemen, a signed OAuth request!' } })()
      assert.equal(answer.status, 200, answer.text)
      assert.equal(answer.json.hello, alice.user.screenName)
      assert.equal(kindOf(answer.json), 'oauth1_user')
    })

    test("a replayed request gets X's 401 code 32, with its WWW-Authenticate", async () => {
      const request = signed('/1.1/account/settings.json', { method: 'GET' })
      assert.equal((await request()).status, 200)
      const replay = await request()
      assert.equal(replay.status, 401)
      assert.deepEqual(replay.json, { errors: [{ code: 32, message: 'Could not authenticate you.' }] })
      assert.equal(replay.headers.get('www-authenticate'), 'OAuth realm="Latchkey"')
    })

    test('bearer tokens: app-only, and an OAuth 2.0 user token with its scopes', async () => {
      const app = await send({ method: 'GET', url: `${example.url}/2/tweets?ids=20`, headers: { authorization: `Bearer ${alice.bearer}` } })
      assert.equal(app.status, 200, app.text)
      assert.deepEqual([app.json.hello, kindOf(app.json)], [alice.app.name, 'bearer'])
      const user = await send({ method: 'GET', url: `${example.url}/2/users/me`, headers: { authorization: `Bearer ${alice.userAccessToken}` } })
      assert.deepEqual([user.json.hello, user.json.caller.scopes], [alice.user.screenName, ['users.read']])
    })

    test('a signature for another host, and no credentials at all, are refused', async () => {
      const elsewhere = signRequest({ consumer: alice.consumer, token: alice.token, method: 'GET', url: 'https://elsewhere.example.org/x' })
      const forged = await send({ ...elsewhere, url: `${example.url}/x` })
      assert.equal(forged.status, 401)
      assert.equal(forged.json.errors[0].code, 32)
      const none = await send({ method: 'GET', url: `${example.url}/x` })
      assert.ok(none.status >= 400 && none.status < 500, none.text)
    })
  })
}
