import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, type TestApp } from '../helpers/test-app.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

function errorOf(body: string): { code: number; message: string } {
  const parsed = JSON.parse(body) as { errors: Array<{ code: number; message: string }> }
  assert.equal(parsed.errors.length, 1)
  return parsed.errors[0]!
}

describe('the service in development mode', () => {
  let t: TestApp
  before(async () => {
    t = await buildTestApp()
    // A route that fails the way a bug would, to see what reaches the client.
    t.app.get('/test-only/boom', async () => {
      throw new Error('secret internals: /var/lib/latchkey')
    })
  })
  after(() => t.close())

  test('GET /healthz answers 200', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-type'], JSON_TYPE)
    assert.deepEqual(res.json(), { status: 'ok' })
  })

  test('GET /readyz answers 200 while the database answers, naming each dependency', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' })
    assert.equal(res.statusCode, 200)
    const redis = process.env.LATCHKEY_TEST_REDIS_URL ? 'up' : 'not_configured'
    assert.deepEqual(res.json(), { status: 'ready', dependencies: { database: 'up', redis, master_key: 'loaded' } })
  })

  test('an unknown path answers 404 code 34 in JSON', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/1.1/statuses/home_timeline.json?count=5' })
    assert.equal(res.statusCode, 404)
    assert.equal(res.headers['content-type'], JSON_TYPE)
    assert.deepEqual(errorOf(res.body), { code: 34, message: 'Sorry, that page does not exist' })
  })

  test('a known path asked with the wrong method answers 405 with an Allow header', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/healthz' })
    assert.equal(res.statusCode, 405)
    assert.equal(res.headers['content-type'], JSON_TYPE)
    assert.match(String(res.headers.allow), /\bGET\b/)
    assert.equal(typeof errorOf(res.body).code, 'number')
  })

  test('POST-only endpoints list POST in the Allow header of a GET', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/oauth/request_token' })
    assert.equal(res.statusCode, 405)
    assert.match(String(res.headers.allow), /\bPOST\b/)
  })

  test('every answer says Cache-Control: no-store', async () => {
    for (const url of ['/healthz', '/no/such/page']) {
      const res = await t.app.inject({ method: 'GET', url })
      assert.equal(res.headers['cache-control'], 'no-store', url)
    }
  })

  test('a body over the limit answers 413 in JSON, not a server error', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/oauth/request_token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `status=${'x'.repeat(1024 * 1024)}`,
    })
    assert.equal(res.statusCode, 413)
    assert.equal(res.headers['content-type'], JSON_TYPE)
    assert.equal(typeof errorOf(res.body).code, 'number')
  })

  test('a failure inside the service answers 500 code 131 and shows nothing of it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test-only/boom' })
    assert.equal(res.statusCode, 500)
    assert.equal(res.headers['content-type'], JSON_TYPE)
    assert.deepEqual(errorOf(res.body), { code: 131, message: 'Internal error' })
    assert.doesNotMatch(res.body, /secret internals|\bat \S+:\d+/)
  })

  test('the Date header is sent over a real socket', async () => {
    const served = await buildTestApp()
    try {
      await served.app.listen({ host: '127.0.0.1', port: 0 })
      const address = served.app.server.address()
      assert.ok(address && typeof address === 'object')
      const res = await fetch(`http://127.0.0.1:${address.port}/healthz`)
      await res.arrayBuffer()
      const date = res.headers.get('date')
      assert.ok(date, 'a Date header')
      assert.ok(!Number.isNaN(Date.parse(date)), `${date} is an HTTP date`)
    } finally {
      await served.close()
    }
  })
})

describe('the service in production mode behind a trusted proxy', () => {
  let t: TestApp
  before(async () => {
    t = await buildTestApp({ http: { dev: false, trustProxy: ['127.0.0.1'] } })
  })
  after(() => t.close())

  test('a request that reached the proxy over plain HTTP answers 403 code 92', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/oauth/request_token', headers: { 'x-forwarded-proto': 'http' } })
    assert.equal(res.statusCode, 403)
    assert.equal(res.headers['content-type'], JSON_TYPE)
    assert.deepEqual(errorOf(res.body), { code: 92, message: 'SSL is required' })
  })

  test('a request that reached the proxy over HTTPS is not refused for SSL', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/no/such/page', headers: { 'x-forwarded-proto': 'https' } })
    assert.equal(res.statusCode, 404)
    assert.equal(errorOf(res.body).code, 34)
  })

  test('X-Forwarded-Proto from an address that is not a trusted proxy is not believed', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/no/such/page',
      remoteAddress: '203.0.113.9',
      headers: { 'x-forwarded-proto': 'https' },
    })
    assert.equal(res.statusCode, 403)
    assert.equal(errorOf(res.body).code, 92)
  })

  test('health checks answer over plain HTTP, for load balancers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-forwarded-proto': 'http' } })
    assert.equal(res.statusCode, 200)
  })
})

describe('readiness', () => {
  test('GET /readyz answers 503 code 130 when the database is gone, naming it, without details', async () => {
    const t = await buildTestApp()
    try {
      await t.domain.runtime.close()
      const res = await t.app.inject({ method: 'GET', url: '/readyz' })
      assert.equal(res.statusCode, 503)
      assert.deepEqual(errorOf(res.body), { code: 130, message: 'Over capacity' })
      // Closing the stores closes Redis too (PostgreSQL pass); the keyring is still in memory.
      const redis = process.env.LATCHKEY_TEST_REDIS_URL ? 'down' : 'not_configured'
      assert.deepEqual(res.json(), {
        status: 'not_ready',
        dependencies: { database: 'down', redis, master_key: 'loaded' },
        errors: [{ code: 130, message: 'Over capacity' }],
      })
      const live = await t.app.inject({ method: 'GET', url: '/healthz' })
      assert.equal(live.statusCode, 200, 'the process itself is still alive')
    } finally {
      await t.close()
    }
  })
})
