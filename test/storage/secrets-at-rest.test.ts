import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import Sqlite from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { checkAuthorizationRequest } from '../../src/domain/oauth2-user/authorization-request.ts'
import { regenerateClientSecret, setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { approveAuthorizationRequest } from '../../src/domain/oauth2-user/consent.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { addWebhook } from '../../src/domain/revocations/webhooks.ts'
import { isPostgresUrl } from '../../src/storage/urls.ts'
import { consentInBrowser } from '../helpers/consent-pages.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { send, signedFetch } from '../helpers/oauth1-client.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'

const run = promisify(execFile)

/**
 * Every credential Latchkey issues, issued for real, then searched for in the raw storage: the
 * SQLite file with its -wal and -shm (before and after a checkpoint), or a full SQL dump of the
 * PostgreSQL schema. None may be found: what must be read back is sealed, the rest kept as keyed
 * hashes only.
 */
describe('no secret or token is stored in clear', () => {
  let server: TestServer
  const issued = new Map<string, string>()

  before(async () => {
    server = await startTestServer()
    const { user, password } = await makeUser(server.domain)
    const app = await makeApp(server.domain, { callbackUrls: ['https://client.example/cb'] })
    issued.set('consumer key', app.consumerKey)
    issued.set('consumer secret', app.consumerSecret)
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }

    for (const callback of ['https://client.example/cb', 'oob']) {
      const requestToken = await signedFetch({ consumer, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: callback } })
      const token = { key: requestToken.form.oauth_token!, secret: requestToken.form.oauth_token_secret! }
      issued.set(`request token (${callback})`, token.key)
      issued.set(`request token secret (${callback})`, token.secret)
      const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${token.key}`, { username: user.screenName, password })
      const verifier = outcome.kind === 'redirect' ? outcome.query.get('oauth_verifier')! : outcome.kind === 'pin' ? outcome.pin : ''
      assert.ok(verifier, `a verifier for ${callback}`)
      issued.set(callback === 'oob' ? 'PIN' : 'verifier', verifier)
      const access = await signedFetch({ consumer, token, url: `${server.url}/oauth/access_token`, oauth: { oauth_verifier: verifier } })
      assert.equal(access.status, 200)
      issued.set('access token', access.form.oauth_token!)
      issued.set('access token secret', access.form.oauth_token_secret!)
    }
    const other = await makeApp(server.domain)
    const owner = await issueOwnerToken(server.domain, other.id)
    issued.set('owner token', owner.token.token)
    issued.set('owner token secret', owner.token.secret)
    const bearer = await send({
      method: 'POST',
      url: `${server.url}/oauth2/token`,
      headers: { authorization: `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    })
    issued.set('bearer token', bearer.json.access_token)
    issued.set('bearer token, decoded', decodeURIComponent(bearer.json.access_token))

    // The revocation push: an endpoint's signing secret (the endpoint is never called here).
    issued.set('webhook signing secret', (await addWebhook(server.domain, { url: 'https://rs.example/hook' })).secret)

    // OAuth 2.0 user context: a client secret and, through its grace period, the one before it; a code,
    // exchanged for an access and a refresh token.
    const oauth2App = await makeApp(server.domain, { callbackUrls: ['https://client.example/cb'] })
    const made = await setOAuth2Client(server.domain, { appId: oauth2App.id, setting: 'confidential' })
    const regenerated = await regenerateClientSecret(server.domain, { appId: oauth2App.id, graceSeconds: 3600 })
    issued.set('client secret, in its grace period', made.newSecret!)
    issued.set('client secret', regenerated!.newSecret!)
    const verifier = 'v'.repeat(43)
    const check = await checkAuthorizationRequest(server.domain, {
      response_type: 'code',
      client_id: made.client!.clientId,
      redirect_uri: 'https://client.example/cb',
      scope: 'users.read offline.access',
      state: 'state',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })
    if (check.outcome !== 'valid') assert.fail(`the authorization request was refused: ${check.redirectTo}`)
    const approved = await approveAuthorizationRequest(server.domain, check.request, { userId: user.id, address: null })
    const code = new URL(approved.redirectTo).searchParams.get('code')!
    issued.set('authorization code', code)
    const tokens = await send({
      method: 'POST',
      url: `${server.url}/2/oauth2/token`,
      headers: { authorization: `Basic ${Buffer.from(`${made.client!.clientId}:${regenerated!.newSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/cb', code_verifier: verifier }).toString(),
    })
    assert.equal(tokens.status, 200, tokens.text)
    issued.set('user access token', tokens.json.access_token)
    issued.set('refresh token', tokens.json.refresh_token)
  })
  after(() => server.close())

  function assertNoneIn(where: string, bytes: Buffer): void {
    const text = bytes.toString('latin1')
    for (const [what, value] of issued) {
      assert.ok(value.length >= 7, `${what} is long enough to search for`)
      assert.equal(text.includes(value), false, `the ${what} was found in clear in ${where}`)
    }
  }

  test('not in the SQLite file, its WAL or its shared memory, before or after a checkpoint', async (t) => {
    if (isPostgresUrl(server.dbPath)) return t.skip('this pass runs on PostgreSQL (the dump test below covers it)')
    const files = () => [server.dbPath, `${server.dbPath}-wal`, `${server.dbPath}-shm`].filter((path) => existsSync(path))
    for (const path of files()) assertNoneIn(path, readFileSync(path))
    const db = new Sqlite(server.dbPath)
    try {
      db.pragma('wal_checkpoint(FULL)')
    } finally {
      db.close()
    }
    for (const path of files()) assertNoneIn(`${path} after a checkpoint`, readFileSync(path))
    assert.ok(files().length >= 1)
  })

  test('not in a full SQL dump of the PostgreSQL schema', async (t) => {
    if (!isPostgresUrl(server.dbPath)) return t.skip('this pass runs on SQLite (the file test above covers it)')
    // This test's schema only: other tests' schemas come and go while it dumps (files run at once).
    const schema = /search_path=(\w+)/.exec(new URL(server.dbPath).searchParams.get('options') ?? '')?.[1]
    assert.ok(schema, `a schema in ${server.dbPath}`)
    const { stdout } = await run('pg_dump', ['--no-owner', '--data-only', `--schema=${schema}`, server.dbPath], { maxBuffer: 64 * 1024 * 1024 })
    assert.match(stdout, /COPY .*apps/, 'the dump holds the tables')
    assertNoneIn('the SQL dump', Buffer.from(stdout))
  })

  test('the issued credentials still work (they were sealed, not lost)', async () => {
    const accessToken = issued.get('access token')!
    assert.ok((await server.domain.stores.accessTokens.findByToken(accessToken))?.secret === issued.get('access token secret'))
    assert.ok(await server.domain.stores.bearerTokens.findByToken(issued.get('bearer token')!))
    assert.ok(await server.domain.stores.oauth2Grants.findToken(issued.get('refresh token')!))
  })
})
