// GET /2/users/me's limits (src/http/routes/oauth2-user.ts): each person of each app has a budget of
// their own, for an OAuth 2.0 user token and an OAuth 1.0a access token alike; past it v2's 429,
// not the v2 401 that any failed authentication becomes.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueEveryCredential, type EveryCredential } from '../helpers/fixtures.ts'
import { send, signedFetch } from '../helpers/oauth1-client.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'

describe('GET /2/users/me limits', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ settings: { rateLimits: { '/2/users/me': 3 } } })
  })
  after(() => server.close())

  const url = () => `${server.url}/2/users/me`
  const withBearer = (issued: EveryCredential) => send({ method: 'GET', url: url(), headers: { authorization: `Bearer ${issued.userAccessToken}` } })
  const signed = (issued: EveryCredential) => signedFetch({ consumer: issued.consumer, token: issued.token, method: 'GET', url: url() })
  const remaining = (answer: { headers: Headers }) => answer.headers.get('x-rate-limit-remaining')

  test('a user token: each person has a budget of their own, counting down to 429', async () => {
    const alice = await issueEveryCredential(server.domain)
    const bob = await issueEveryCredential(server.domain)
    assert.deepEqual([remaining(await withBearer(alice)), remaining(await withBearer(alice))], ['2', '1'])
    assert.equal(remaining(await withBearer(bob)), '2', "another person's calls are not alice's")
    assert.equal((await withBearer(alice)).status, 200)
    const refused = await withBearer(alice)
    assert.equal(refused.status, 429)
  })

  test("an OAuth 1.0a access token: counted too, and past the limit v2's 429, not the v2 401 of a failed authentication", async () => {
    const carol = await issueEveryCredential(server.domain)
    const answers = [await signed(carol), await signed(carol), await signed(carol), await signed(carol)]
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 429])
    assert.deepEqual(answers.slice(0, 3).map(remaining), ['2', '1', '0'])
    assert.deepEqual(answers[3]!.json, { title: 'Rate limit exceeded', type: 'about:blank', status: 429, detail: 'Rate limit exceeded' })
  })

  test('an OAuth 1.0a header that cannot be read is the v2 401, with the reason the log has (in development)', async () => {
    const answer = await send({ method: 'GET', url: url(), headers: { authorization: 'OAuth oauth_nonce="x"' } })
    assert.equal(answer.status, 401)
    assert.equal(answer.json?.title, 'Unauthorized')
    assert.match(answer.headers.get('x-latchkey-reason') ?? '', /oauth_consumer_key/)
  })
})
