// The request journal (src/web/test-kit/journal.ts): each call to the API with what the verifier
// saw (parameters by place, the base string masked as the failure log masks it), its outcome and
// reason; injected answers marked; filters; a bound per app; clear.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createFaultQueue } from '../../../src/web/test-kit/faults.ts'
import { createRequestJournal } from '../../../src/web/test-kit/journal.ts'
import { issueEveryCredential, type EveryCredential } from '../../helpers/fixtures.ts'
import { oauth2Client } from '../../helpers/oauth2-user.ts'
import { injectedTestServer, testClock, type TestServer } from '../../helpers/test-app.ts'

/** The base string's parameters, decoded twice: `a=1&b=2` as the client signed them (RFC 5849 §3.4.1). */
const signedParameters = (baseString: string) => decodeURIComponent(decodeURIComponent(baseString.split('&')[2]!))

describe('the request journal', () => {
  let server: TestServer
  const faults = createFaultQueue()
  const journal = createRequestJournal({ perApp: 3 })
  let alice: EveryCredential
  before(async () => {
    server = await injectedTestServer({ testKit: { faults, journal } })
    alice = await issueEveryCredential(server.domain)
  })
  after(() => server.close())

  const verify = (issued: EveryCredential, consumerSecret = issued.consumer.secret) =>
    server.signedFetch({
      consumer: { key: issued.consumer.key, secret: consumerSecret },
      token: issued.token,
      method: 'GET',
      url: `${server.url}/1.1/account/verify_credentials.json?include_entities=true&skip_status=1`,
    })

  test('an accepted signed call: its app, parameters by place and the base string Latchkey computed, secrets hidden', async () => {
    journal.clear()
    assert.equal((await verify(alice)).status, 200)
    const [entry, ...rest] = journal.list()
    assert.equal(rest.length, 0)
    assert.equal(entry!.outcome, 'accepted')
    assert.equal(entry!.status, 200)
    assert.equal(entry!.endpoint, 'GET /1.1/account/verify_credentials.json')
    assert.equal(entry!.path, '/1.1/account/verify_credentials.json')
    assert.deepEqual(entry!.app, { id: alice.app.id, consumer_key: alice.consumer.key })
    assert.equal(entry!.reason, null)
    assert.equal(entry!.oauth1!.result, 'ok')
    assert.deepEqual(entry!.oauth1!.parameters.query, ['include_entities', 'skip_status'])
    assert.deepEqual(entry!.oauth1!.parameters.body, [])
    assert.ok(entry!.oauth1!.parameters.header.includes('oauth_signature') && entry!.oauth1!.parameters.header.includes('oauth_token'))
    const base = entry!.oauth1!.base_string!
    assert.ok(base.startsWith(`GET&${encodeURIComponent(`${server.url}/1.1/account/verify_credentials.json`)}&`), base)
    assert.match(signedParameters(base), /(^|&)include_entities=true(&|$)/)
    assert.match(signedParameters(base), new RegExp(`oauth_consumer_key=${alice.consumer.key}`))
  })

  test("a bad signature: refused, its reason, the base string with the token [hidden], and no secret anywhere", async () => {
    journal.clear()
    const refused = await verify(alice, 'not-the-secret')
    assert.equal(refused.status, 401)
    const [entry] = journal.list()
    assert.equal(entry!.outcome, 'refused')
    assert.equal(entry!.reason, 'bad_signature')
    assert.deepEqual(entry!.error, { code: 32, message: 'Could not authenticate you.' })
    assert.equal(entry!.oauth1!.result, 'bad_signature')
    assert.match(signedParameters(entry!.oauth1!.base_string!), /(^|&)oauth_token=\[hidden\](&|$)/)
    const shown = JSON.stringify(entry)
    for (const secret of [alice.token.key, alice.token.secret, alice.consumer.secret]) assert.ok(!shown.includes(secret), 'no credential is shown')
    // Its twin: the same call signed right is accepted.
    assert.equal((await verify(alice)).status, 200)
    assert.equal(journal.list()[0]!.outcome, 'accepted')
  })

  test('a call the verifier refuses before parsing (215) is journaled with its parameters by place and no base string', async () => {
    journal.clear()
    const answer = await server.send({ method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json?x=1`, headers: { authorization: 'OAuth oauth_consumer_key="k"' } })
    assert.equal(answer.status, 400)
    const [entry] = journal.list()
    assert.equal(entry!.outcome, 'refused')
    assert.equal(entry!.reason, 'malformed')
    assert.deepEqual(entry!.oauth1, { result: 'malformed', parameters: { header: ['oauth_consumer_key'], query: ['x'], body: [] }, base_string: null })
    assert.equal(entry!.app, null)
  })

  test('an injected answer is marked as such, with its fault', async () => {
    journal.clear()
    const fault = faults.add({ endpoint: 'GET /1.1/account/verify_credentials.json', times: 1, kind: 'rate_limited' })
    assert.equal((await verify(alice)).status, 429)
    const [entry] = journal.list()
    assert.equal(entry!.outcome, 'injected')
    assert.equal(entry!.fault, fault.id)
    assert.equal(entry!.reason, 'injected: rate_limited')
    assert.deepEqual(entry!.error, { code: 88, message: 'Rate limit exceeded' })
  })

  test('OAuth 2.0 calls are journaled under the app they authenticated as (client credentials, an app-only bearer, a user token); a refused one under none', async () => {
    journal.clear()
    const basic = `Basic ${Buffer.from(`${alice.consumer.key}:${alice.consumer.secret}`).toString('base64')}`
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    assert.equal((await server.send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { authorization: basic, ...form }, body: 'grant_type=client_credentials' })).status, 200)
    assert.equal((await server.send({ method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json`, headers: { authorization: `Bearer ${alice.bearer}` } })).status, 200)
    assert.equal((await server.send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization: `Bearer ${alice.userAccessToken}` } })).status, 200)
    assert.equal((await server.send({ method: 'GET', url: `${server.url}/2/users/me`, headers: { authorization: 'Bearer not-a-token' } })).status, 401)
    const client = await oauth2Client(server.domain, { type: 'public' })
    const revoked = await server.send({ method: 'POST', url: `${server.url}/2/oauth2/revoke`, headers: form, body: `client_id=${client.clientId}&token=unknown` })
    assert.equal(revoked.status, 200, revoked.text)
    const app = { id: alice.app.id, consumer_key: alice.consumer.key }
    assert.deepEqual(
      journal.list().map((entry) => [entry.endpoint, entry.outcome, entry.app]),
      [
        ['POST /2/oauth2/revoke', 'accepted', { id: client.app.id, consumer_key: client.app.consumerKey }],
        ['GET /2/users/me', 'refused', null],
        ['GET /2/users/me', 'accepted', app],
        ['GET /1.1/application/rate_limit_status.json', 'accepted', app],
        ['POST /oauth2/token', 'accepted', app],
      ],
    )
  })

  test('filters by app (id or consumer key), endpoint and outcome; a bound per app; clear', async () => {
    journal.clear()
    const bob = await issueEveryCredential(server.domain)
    await verify(alice)
    await verify(bob, 'wrong')
    await server.send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })
    assert.deepEqual(journal.list({ app: alice.app.id }).map((entry) => entry.outcome), ['accepted'])
    assert.deepEqual(journal.list({ app: bob.consumer.key }).map((entry) => entry.outcome), ['refused'])
    assert.deepEqual(journal.list({ outcome: 'refused' }).map((entry) => entry.endpoint), ['POST /oauth2/token', 'GET /1.1/account/verify_credentials.json'])
    assert.equal(journal.list({ endpoint: '/oauth2/token' }).length, 1)
    assert.equal(journal.list({ endpoint: 'POST /oauth2/token' }).length, 1)
    assert.equal(journal.list({ endpoint: 'GET /oauth2/token' }).length, 0)
    const page = await server.send({ method: 'GET', url: `${server.url}/oauth/authorize?oauth_token=unknown` })
    assert.ok(page.status >= 400, 'the consent page answered')
    assert.equal(journal.list({ endpoint: '/oauth/authorize' }).length, 0, 'the pages are not journaled')
    for (let i = 0; i < 4; i += 1) await verify(alice)
    assert.equal(journal.list({ app: alice.app.id }).length, 3, 'the last 3 of the app (perApp)')
    assert.equal(journal.list({ app: bob.app.id }).length, 1, "another app's are kept")
    journal.clear()
    assert.deepEqual(journal.list(), [])
  })
})

describe('outside test mode', () => {
  /** The names of the app's own hooks (Fastify keeps them under its `fastify.hooks` symbol). */
  const hookNames = (app: object): string[] => {
    const key = Object.getOwnPropertySymbols(app).find((symbol) => symbol.description === 'fastify.hooks')!
    const hooks = (app as Record<symbol, Record<string, Array<{ name: string }>>>)[key]!
    return ['onRequest', 'onError', 'onResponse'].flatMap((kind) => (hooks[kind] ?? []).map((hook) => hook.name))
  }
  const TEST_KIT_HOOKS = ['testKitJournalOpen', 'testKitFault', 'testKitJournalError', 'testKitJournalClose']

  test('without AppDeps.testKit no hook of the test kit is on the request path', async () => {
    const plain = await injectedTestServer()
    const testMode = await injectedTestServer({ testKit: { faults: createFaultQueue(), journal: createRequestJournal() } })
    try {
      assert.deepEqual(hookNames(testMode.app).filter((name) => TEST_KIT_HOOKS.includes(name)), TEST_KIT_HOOKS)
      assert.deepEqual(hookNames(plain.app).filter((name) => name.startsWith('testKit')), [])
    } finally {
      await plain.close()
      await testMode.close()
    }
  })
})

describe("the journal's times", () => {
  test("follow the clock it is given (the test mode's), moved or not", async () => {
    const clock = testClock()
    const journal = createRequestJournal({ now: () => clock.nowMs() })
    const server = await injectedTestServer({ clock, testKit: { faults: createFaultQueue(), journal } })
    try {
      const issued = await issueEveryCredential(server.domain)
      clock.advance(3_600_000)
      const answer = await server.signedFetch({ consumer: issued.consumer, token: issued.token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json`, timestamp: Math.floor(clock.nowMs() / 1000) })
      assert.equal(answer.status, 200, answer.text)
      assert.equal(journal.list()[0]!.at, new Date(clock.nowMs()).toISOString())
    } finally {
      await server.close()
    }
  })
})
