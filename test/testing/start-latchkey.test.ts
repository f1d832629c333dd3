// Issue 47 item 8: the test mode in a test's own process, as `import { startLatchkey } from 'latchkey/testing'` gives it.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { startLatchkey } from '../../src/testing.ts'
import { send, signRequest } from '../helpers/oauth1-client.ts'

const CALLBACK = 'http://127.0.0.1:9/callback'

describe("startLatchkey: the test mode in the test's own process", () => {
  test('a request token answered as a person through it exchanges for a token; its clock moves; reset forgets what was made; close stops it', async () => {
    const latchkey = await startLatchkey()
    try {
      const admin = async (method: string, path: string, body?: object) => {
        const answer = await fetch(`${latchkey.adminUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${latchkey.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        })
        return { status: answer.status, json: (answer.status === 204 ? {} : await answer.json()) as Record<string, string> }
      }
      assert.equal((await admin('POST', '/admin/v1/users', { screen_name: 'grace', password: 'correct horse battery' })).status, 201)
      const app = (await admin('POST', '/admin/v1/apps', { name: 'Client under test', owner: 'grace', callbacks: [CALLBACK] })).json
      const consumer = { key: app.consumer_key!, secret: app.consumer_secret! }
      const requested = await send(signRequest({ consumer, url: `${latchkey.url}/oauth/request_token`, oauth: { oauth_callback: CALLBACK } }))
      assert.equal(requested.status, 200, requested.text)

      // A failure injected for the exchange answers once, and the journal has both calls.
      latchkey.faults.add({ endpoint: 'POST /oauth/access_token', kind: 'over_capacity', times: 1 })
      const outcome = await latchkey.consent({ oauthToken: requested.form.oauth_token!, screenName: 'grace', decision: 'allow' })
      assert.ok('location' in outcome)
      const verifier = new URL(outcome.location).searchParams.get('oauth_verifier')!
      const token = { key: requested.form.oauth_token!, secret: requested.form.oauth_token_secret! }
      const exchange = () => send(signRequest({ consumer, token, url: `${latchkey.url}/oauth/access_token`, oauth: { oauth_verifier: verifier } }))
      assert.equal((await exchange()).status, 503)
      const exchanged = await exchange()
      assert.equal(exchanged.status, 200, exchanged.text)
      assert.deepEqual(latchkey.requests.list({ endpoint: '/oauth/access_token' }).map((entry) => entry.outcome), ['accepted', 'injected'])
      assert.deepEqual(latchkey.faults.list(), [])
      assert.equal(exchanged.form.screen_name, 'grace')

      const before = latchkey.clock.now().getTime()
      latchkey.clock.advance(3600)
      assert.ok(latchkey.clock.now().getTime() - before >= 3_600_000)
      assert.throws(() => latchkey.clock.set(new Date(before - 86_400_000)), RangeError)

      await latchkey.reset()
      assert.equal((await admin('GET', `/admin/v1/apps/${app.app_id}`)).status, 404, 'the app made after the start is gone')
    } finally {
      await latchkey.close()
    }
    await assert.rejects(fetch(`${latchkey.url}/healthz`), 'it no longer listens')
  })

  test('with a seed: what it made is in seeded, with every value, and survives a reset', async () => {
    const latchkey = await startLatchkey({ seed: { people: [{ screen_name: 'ada', password: 'correct horse battery' }], apps: [{ name: 'Seeded', owner: 'ada' }], credentials: { bearer_tokens: [{ app: 'Seeded' }] } } })
    try {
      const bearer = latchkey.seeded!.credentials.bearer_tokens[0]!.token
      const call = () => fetch(`${latchkey.url}/1.1/application/rate_limit_status.json`, { headers: { authorization: `Bearer ${bearer}` } })
      assert.equal((await call()).status, 200)
      await latchkey.reset()
      assert.equal((await call()).status, 200, 'the seeded bearer token is part of the state kept')
    } finally {
      await latchkey.close()
    }
  })
})
