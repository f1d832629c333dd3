import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { runLoad, runTiming, type LoadConfig } from '../../bench/load.ts'
import { precheck } from '../../bench/prechecks.ts'
import { registerBench } from '../../bench/setup.ts'
import { SHAPES, type BenchCredentials, type Target } from '../../bench/shapes.ts'
import { fastSigner, signParams } from '../../bench/sign.ts'
import { signRequest } from '../helpers/oauth1-client.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'

// Keeps `npm run bench` from rotting: its signer and its requests against the real verifier, in
// production mode behind a trusted proxy as the bench runs it. No timing is asserted.
describe('the benchmark harness', () => {
  let server: TestServer
  let target: Target
  let creds: BenchCredentials

  before(async () => {
    server = await startTestServer({ http: { dev: false, trustProxy: ['127.0.0.1'] }, settings: { rateLimitMultiplier: 1000 } })
    target = { host: '127.0.0.1', port: Number(new URL(server.url).port) }
    // Shape 7.2 needs a refresh chain per connection of the load test below (2), one more for /2/users/me.
    creds = await registerBench(server.domain, { userGrants: 3 })
  })
  after(() => server.close())

  test('its fast signer gives the plain signer\'s header and the oauth-1.0a library\'s signature', () => {
    const input = {
      method: 'GET',
      baseUri: 'https://127.0.0.1:8443/1.1/account/verify_credentials.json',
      params: [['b', 'x y'], ['a', '2']] as Array<[string, string]>,
      consumer: { key: creds.consumerKey, secret: creds.consumerSecret },
      token: { key: creds.accessToken, secret: creds.accessTokenSecret },
    }
    const plain = signParams({ ...input, nonce: 'abc123', timestamp: 1_700_000_000 })
    const fast = fastSigner(input)('abc123', 1_700_000_000)
    assert.ok(fast.includes(`oauth_signature="${encodeURIComponent(plain.at(-1)![1])}"`), fast)
    const library = signRequest({
      ...input,
      url: `${input.baseUri}?b=x%20y&a=2`,
      nonce: 'abc123',
      timestamp: 1_700_000_000,
    })
    assert.equal(library.oauthParams.oauth_signature, plain.at(-1)![1])
  })

  test('pre-checks pass: valid 200, tampered and replayed 401 code 32, every shape 200', async () => {
    const checked = await precheck(target, creds)
    assert.ok(checked.bearerToken.length > 100)
    creds = checked
  })

  test('the load generator sends every shape without a single failure', async () => {
    const kinds = new Set(Object.values(SHAPES).map((shape) => shape.kind))
    for (const kind of kinds) {
      const config: LoadConfig = { mode: 'load', ...target, kind, credentials: [creds], connections: 2, warmupSeconds: 0.05, durationSeconds: 0.2, serverPid: process.pid }
      const result = await runLoad(config)
      assert.equal(result.errors, 0, `${kind}: ${result.firstError}`)
      assert.ok(result.requests > 0, kind)
      if (kind !== 'refresh') continue
      // Each connection's chain ends on a refresh token of its own that the next run goes on from.
      const before = creds.oauth2!.refreshTokens!
      assert.equal(result.refreshTokens?.length, 2)
      assert.ok(result.refreshTokens!.every((token, i) => token !== before[i]))
      const again = await runLoad({ ...config, credentials: [{ ...creds, oauth2: { ...creds.oauth2!, refreshTokens: result.refreshTokens! } }] })
      assert.equal(again.errors, 0, `a second run from where the first left the chains: ${again.firstError}`)
      const spent = await runLoad(config)
      assert.ok(spent.errors > 0, 'starting again from spent refresh tokens fails (the reuse ends the grant)')
    }
  })

  test('the timing check gets 401 for an unknown consumer key and for a wrong signature', async () => {
    const config: LoadConfig = { mode: 'timing', ...target, kind: 'verify', credentials: [creds], connections: 1, warmupSeconds: 0, durationSeconds: 0, timingSamples: 5 }
    const result = await runTiming(config)
    assert.equal(result.errors, 0, result.firstError)
  })
})
