import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { trace } from '@opentelemetry/api'
import { loadConfig } from '../../src/config/load.ts'
import type { SettingName } from '../../src/config/settings.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { startServer, type RunningServer } from '../../src/server.ts'
import { TEST_DATABASE_URL, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema } from '../helpers/backends.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { TEST_MASTER_KEY } from '../helpers/keys.ts'
import { signRequest, send } from '../helpers/oauth1-client.ts'
import { attribute, startReceiver } from '../helpers/otlp-receiver.ts'

/**
 * Traces as an operator's collector receives them: the real server (startServer, as `serve` runs
 * it) exports over OTLP/HTTP (JSON) to a small receiver in this test. The tests run in order: the
 * first one, without an endpoint, must run before any tracer is registered in this process.
 */

const dir = mkdtempSync(join(tmpdir(), 'latchkey-tracing-'))
const cleanups: Array<() => Promise<void>> = []
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  rmSync(dir, { recursive: true, force: true })
})

/** The server as `serve --dev` on this pass's backends (a schema and key prefix of its own on PostgreSQL). */
async function startOnThisPass(settings: Partial<Record<SettingName, unknown>>): Promise<RunningServer> {
  // Free ports, the admin listener's too: a development server left running holds 8080 and 8081.
  const flags: Partial<Record<SettingName, unknown>> = { dev: true, port: 0, adminPort: 0, masterKey: TEST_MASTER_KEY, logLevel: 'silent', ...settings }
  if (TEST_DATABASE_URL && TEST_REDIS_URL) {
    const schema = await createTestSchema()
    const keys = createTestRedisPrefix()
    cleanups.push(() => schema.drop(), () => keys.clean())
    Object.assign(flags, { database: schema.url, redis: TEST_REDIS_URL, redisKeyPrefix: keys.prefix })
  } else {
    flags.database = join(dir, `${Math.random().toString(36).slice(2)}.sqlite`)
  }
  return startServer(loadConfig({ env: {}, flags }))
}

describe('OpenTelemetry traces', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  before(async () => {
    receiver = await startReceiver()
    cleanups.push(async () => void receiver.server.close())
  })

  test('with no endpoint set, no tracer is registered and nothing is sent', async () => {
    const server = await startOnThisPass({})
    try {
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
      assert.equal(trace.getTracer('probe').startSpan('probe').isRecording(), false, 'no SDK: every span is a no-op')
    } finally {
      await server.close()
    }
    assert.equal(receiver.spans.length, 0)
  })

  test('a signed request: a server span named after its route, children for storage and the signature, the caller\'s traceparent honoured, no secret in any attribute', async () => {
    // Behind a trusted proxy on loopback: a request it forwards over TLS is traced as https.
    const server = await startOnThisPass({ otelEndpoint: receiver.url, trustProxy: '127.0.0.1' })
    const app = await makeApp(server.domain)
    const { token, owner } = await issueOwnerToken(server.domain, app.id)
    const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const callerSpanId = '00f067aa0ba902b7'
    const signed = signRequest({
      consumer: { key: app.consumerKey, secret: app.consumerSecret },
      token: { key: token.token, secret: token.secret },
      method: 'GET',
      url: `${server.url}/1.1/account/verify_credentials.json?include_email=true`,
      extraHeaders: { traceparent: `00-${callerTraceId}-${callerSpanId}-01` },
    })
    try {
      assert.equal((await send(signed)).status, 200)
      assert.equal((await fetch(`${server.url}/healthz`, { headers: { 'x-forwarded-proto': 'https' } })).status, 200)
    } finally {
      await server.close() // flushes the spans still batched
    }
    const forwarded = receiver.spans.find((s) => s.name === 'GET /healthz')
    assert.equal(forwarded && attribute(forwarded, 'url.scheme'), 'https')

    const requestSpan = receiver.spans.find((s) => s.name === 'GET /1.1/account/verify_credentials.json')
    assert.ok(requestSpan, `a server span named after the route among ${receiver.spans.map((s) => s.name).join(', ')}`)
    assert.equal(requestSpan.kind, 2, 'SPAN_KIND_SERVER')
    assert.equal(requestSpan.traceId, callerTraceId, 'the trace the caller started')
    assert.equal(requestSpan.parentSpanId, callerSpanId, 'a child of the caller\'s span')
    assert.equal(attribute(requestSpan, 'http.route'), '/1.1/account/verify_credentials.json')
    assert.equal(attribute(requestSpan, 'http.request.method'), 'GET')
    assert.equal(attribute(requestSpan, 'url.scheme'), 'http')
    assert.equal(attribute(requestSpan, 'network.protocol.version'), '1.1')
    assert.equal(attribute(requestSpan, 'http.response.status_code'), 200)
    assert.deepEqual([...new Set(receiver.serviceNames)], ['latchkey'])

    const children = receiver.spans.filter((s) => s.parentSpanId === requestSpan.spanId)
    const names = children.map((s) => s.name)
    assert.ok(names.includes('oauth1.verify_signature'), `the signature check is a child span: ${names.join(', ')}`)
    const lookup = children.find((s) => s.name === 'credentials.findConsumerWithAccessToken')
    assert.ok(lookup, `the credentials statement is a child span: ${names.join(', ')}`)
    assert.equal(lookup.kind, 3, 'SPAN_KIND_CLIENT')
    assert.equal(attribute(lookup, 'db.system.name'), TEST_DATABASE_URL ? 'postgresql' : 'sqlite')
    assert.equal(attribute(lookup, 'db.operation.name'), 'credentials.findConsumerWithAccessToken')
    if (TEST_REDIS_URL) {
      const remember = children.find((s) => s.name === 'admissions.admit')
      assert.ok(remember, `the admission (address, charge and nonce in one call) is a child span: ${names.join(', ')}`)
      assert.equal(attribute(remember, 'db.system.name'), 'redis')
    }
    for (const span of children) assert.equal(span.traceId, callerTraceId)

    const everything = JSON.stringify(receiver.spans)
    const secrets = {
      consumerKey: app.consumerKey,
      consumerSecret: app.consumerSecret,
      token: token.token,
      tokenSecret: token.secret,
      signature: encodeURIComponent(signed.oauthParams.oauth_signature!),
      rawSignature: signed.oauthParams.oauth_signature!,
      nonce: signed.oauthParams.oauth_nonce!,
      userId: owner.id,
      screenName: owner.screenName,
      query: 'include_email',
    }
    for (const [what, value] of Object.entries(secrets)) assert.ok(!everything.includes(value), `no ${what} in any span`)
  })
})
