// Issue 31: the validity cache never outlives a write. What ends a credential, done with the CLI in
// another process while the server answers from its cache: the very next request is refused.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { runCli } from '../helpers/cli.ts'
import { issueEveryCredential } from '../helpers/fixtures.ts'
import { errorCode } from '../helpers/oauth1-client.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'

describe('validity: a credential ended by the CLI in another process is refused at the next request', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  const cli = async (...args: string[]) => {
    const result = await runCli(args, { LATCHKEY_DATABASE_URL: server.dbPath })
    assert.equal(result.code, 0, result.stderr)
  }

  /** An app with an owner token, a bearer token and an OAuth 2.0 user token of one person. */
  async function credentials() {
    const { app, user, consumer, token, bearer, userAccessToken } = await issueEveryCredential(server.domain)
    const calls = {
      signed: () =>
        server.signedFetch({ consumer, token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` }),
      bearer: () => server.send({ method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json`, headers: { authorization: `Bearer ${bearer}` } }),
      user: () => server.send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization: `Bearer ${userAccessToken}` } }),
    }
    return { app, user, calls }
  }

  type Calls = Awaited<ReturnType<typeof credentials>>['calls']

  /** Each kind of call's status and Twitter code, each made twice (the second from the cache). */
  async function outcomes(calls: Calls): Promise<Record<keyof Calls, string>> {
    const seen = {} as Record<keyof Calls, string>
    for (const name of Object.keys(calls) as Array<keyof Calls>) {
      const first = await calls[name]()
      const second = await calls[name]()
      const shown = (answer: typeof first) => `${answer.status}${errorCode(answer) === undefined ? '' : ` ${errorCode(answer)}`}`
      assert.equal(shown(second), shown(first), `${name}: the same answer twice`)
      seen[name] = shown(first)
    }
    return seen
  }

  const ALL_ACCEPTED = { signed: '200', bearer: '200', user: '200' }

  test('suspension ends every credential of the app; lifting it gives back its OAuth 1.0a and app-only tokens', async () => {
    const { app, calls } = await credentials()
    assert.deepEqual(await outcomes(calls), ALL_ACCEPTED)
    await cli('app', 'update', app.id, '--suspended')
    assert.deepEqual(await outcomes(calls), { signed: '401 416', bearer: '401 416', user: '401' })
    // A suspension ends the OAuth 2.0 grants for good (docs/api.md); the other tokens only pause.
    await cli('app', 'update', app.id, '--no-suspended')
    assert.deepEqual(await outcomes(calls), { ...ALL_ACCEPTED, user: '401' })
  })

  test('disabling the person ends what acts for them; the app-only token goes on', async () => {
    const { user, calls } = await credentials()
    assert.deepEqual(await outcomes(calls), ALL_ACCEPTED)
    await cli('user', 'disable', user.id)
    assert.deepEqual(await outcomes(calls), { signed: '401 89', bearer: '200', user: '401' })
  })

  test('rotating the keys without grace ends the tokens signed with the old pair', async () => {
    const { app, calls } = await credentials()
    assert.deepEqual(await outcomes(calls), ALL_ACCEPTED)
    await cli('app', 'rotate-keys', app.id, '--yes')
    assert.deepEqual(await outcomes(calls), { signed: '401 89', bearer: '401 89', user: '200' })
  })

  test('deleting the app ends every credential of it', async () => {
    const { app, calls } = await credentials()
    assert.deepEqual(await outcomes(calls), ALL_ACCEPTED)
    await cli('app', 'delete', app.id)
    assert.deepEqual(await outcomes(calls), { signed: '401 89', bearer: '401 89', user: '401' })
  })
})
