// Issue 31: the validity cache never outlives a write. What ends a credential, done with the CLI in
// another process while the server answers from its cache: the very next request is refused.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { runCli } from '../helpers/cli.ts'
import { issueEveryCredential } from '../helpers/fixtures.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'
import { ALL_ACCEPTED, CLI_ENDINGS, outcomes, type ValidityCalls } from '../helpers/validity.ts'

describe('validity: a credential ended by the CLI in another process is refused at the next request', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  const cli = async (...args: string[]) => {
    const result = await runCli(args, server.cliEnv)
    assert.equal(result.code, 0, result.stderr)
  }

  /** An app with an owner token, a bearer token and an OAuth 2.0 user token of one person. */
  async function credentials() {
    const { app, user, consumer, token, bearer, userAccessToken } = await issueEveryCredential(server.domain)
    const calls: ValidityCalls = {
      signed: () => server.signedFetch({ consumer, token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` }),
      bearer: () => server.send({ method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json`, headers: { authorization: `Bearer ${bearer}` } }),
      user: () => server.send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization: `Bearer ${userAccessToken}` } }),
    }
    return { app, user, calls }
  }

  for (const { title, args, after: ended } of CLI_ENDINGS) {
    test(title, async () => {
      const { app, user, calls } = await credentials()
      assert.deepEqual(await outcomes(calls), ALL_ACCEPTED)
      await cli(...args({ appId: app.id, userId: user.id }))
      assert.deepEqual(await outcomes(calls), ended)
    })
  }

  test('lifting a suspension gives back its OAuth 1.0a and app-only tokens, not its OAuth 2.0 grants', async () => {
    const { app, calls } = await credentials()
    await cli('app', 'update', app.id, '--suspended')
    assert.deepEqual(await outcomes(calls), { signed: '401 416', bearer: '401 416', user: '401' })
    // A suspension ends the OAuth 2.0 grants for good (docs/api.md); the other tokens only pause.
    await cli('app', 'update', app.id, '--no-suspended')
    assert.deepEqual(await outcomes(calls), { ...ALL_ACCEPTED, user: '401' })
  })
})
