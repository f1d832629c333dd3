import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { startTracing } from '../../src/observability/tracing.ts'
import { attribute, startReceiver } from '../helpers/otlp-receiver.ts'

/**
 * The spans of requests and storage calls that the server test (tracing.test.ts) cannot easily
 * cause: a request that matched no route, an answer that is a server error, a storage call that
 * fails. The tracing module alone, exporting to a real OTLP/HTTP receiver.
 */

const receiver = await startReceiver()
after(() => void receiver.server.close())

const SPAN_KIND_CLIENT = 3
const STATUS_ERROR = 2

test('spans of an unmatched request, of server errors and of a failed storage call, sent to an endpoint given with a trailing slash', async () => {
  // The SDK's own variable names the service, over the default (tracing.test.ts sees the default).
  process.env.OTEL_SERVICE_NAME = 'latchkey-staging'
  const tracing = startTracing(`${receiver.url}/`)
  const request = (route: string | undefined, status: number) => {
    const started = tracing.startRequest({ method: 'GET', route, scheme: 'http', httpVersion: '1.1', headers: {} })
    tracing.endRequest(started, status)
  }
  request(undefined, 404)
  request('/a', 500)
  request('/b', 499)
  const failing = tracing.storageInstrument('sqlite', 'apps.findById')(() => Promise.reject(new Error('the database refused')))
  await assert.rejects(failing, /the database refused/)
  await tracing.shutdown()

  const byName = new Map(receiver.spans.map((span) => [span.name, span]))
  const unmatched = byName.get('GET unmatched')
  assert.ok(unmatched, `a span for the unmatched request among ${[...byName.keys()].join(', ')}`)
  assert.equal(attribute(unmatched, 'http.route'), undefined, 'no route attribute without a route')
  assert.equal(attribute(unmatched, 'http.response.status_code'), 404)
  assert.notEqual(unmatched.status?.code, STATUS_ERROR, 'a client error is not a server error')
  assert.equal(byName.get('GET /a')?.status?.code, STATUS_ERROR, 'a 500 marks its span as an error')
  assert.equal(attribute(byName.get('GET /a')!, 'http.route'), '/a')
  assert.notEqual(byName.get('GET /b')?.status?.code, STATUS_ERROR, 'below 500 is not an error')
  const storage = byName.get('apps.findById')
  assert.equal(storage?.kind, SPAN_KIND_CLIENT)
  assert.equal(storage.status?.code, STATUS_ERROR, 'a failed storage call marks its span as an error')
  assert.equal(attribute(storage, 'db.system.name'), 'sqlite')
  assert.deepEqual([...new Set(receiver.serviceNames)], ['latchkey-staging'])
  assert.deepEqual([...new Set(receiver.scopeNames)], ['latchkey'])
})
