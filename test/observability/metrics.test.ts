import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { updateApp } from '../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { TEST_REDIS_URL } from '../helpers/backends.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { signRequest } from '../helpers/oauth1-client.ts'
import { counterValues, deltas, histogramSeries, parseScrape, seriesKey, type MetricFamily } from '../helpers/prometheus-text.ts'
import { injectedTestServer, type TestServer } from '../helpers/test-app.ts'
import { csrfOf } from '../helpers/browser.ts'
import { makeRequestToken } from '../helpers/consent-pages.ts'

const VERIFY = '/1.1/account/verify_credentials.json'
const RATE_LIMIT_STATUS = '/1.1/application/rate_limit_status.json'

async function scrape(server: TestServer): Promise<{ text: string; families: Map<string, MetricFamily> }> {
  const response = await server.transport({ method: 'GET', url: `${server.url}/metrics` })
  assert.equal(response.status, 200)
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
  const text = await response.text()
  return { text, families: parseScrape(text) }
}

/** A histogram series' count and sum (0 when it has no observations yet). */
function histogram(text: string, name: string, labels: Record<string, string> = {}): { count: number; sum: number } {
  const series = histogramSeries(text)
  return { count: series.get(seriesKey(`${name}_count`, labels)) ?? 0, sum: series.get(seriesKey(`${name}_sum`, labels)) ?? 0 }
}

describe('GET /metrics (--metrics-public)', () => {
  let server: TestServer
  before(async () => {
    server = await injectedTestServer({ metrics: true, settings: { rateLimits: { '/application/rate_limit_status': 1 } } })
  })
  after(() => server.close())

  test('a scripted sequence moves each counter by exactly the expected amount, and the text parses', async () => {
    const app = await makeApp(server.domain)
    const { token } = await issueOwnerToken(server.domain, app.id)
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const owner = { key: token.token, secret: token.secret }
    const rt = await makeRequestToken(server.domain, app)
    const before = await scrape(server)
    const startedAt = performance.now()

    // OAuth 1.0a: a good request, a bad signature, the good one replayed, a stale timestamp.
    const good = signRequest({ consumer, token: owner, method: 'GET', url: `${server.url}${VERIFY}` })
    assert.equal((await server.send(good)).status, 200)
    const forged = await server.signedFetch({ consumer: { ...consumer, secret: 'not-the-secret' }, token: owner, method: 'GET', url: `${server.url}${VERIFY}` })
    assert.equal(forged.status, 401)
    assert.equal((await server.send(good)).status, 401, 'the replay is refused')
    const stale = await server.signedFetch({ consumer, token: owner, method: 'GET', url: `${server.url}${VERIFY}`, timestamp: Math.floor(Date.now() / 1000) - 3600 })
    assert.equal(stale.status, 401)

    // App-only: a bearer token issued, two calls with it, the second past the limit of 1 (429).
    const basic = `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`
    const issued = await server.send({
      method: 'POST',
      url: `${server.url}/oauth2/token`,
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    })
    assert.equal(issued.status, 200)
    const bearer = { authorization: `Bearer ${issued.json.access_token}` }
    assert.equal((await server.send({ method: 'GET', url: `${server.url}${RATE_LIMIT_STATUS}`, headers: bearer })).status, 200)
    assert.equal((await server.send({ method: 'GET', url: `${server.url}${RATE_LIMIT_STATUS}`, headers: bearer })).status, 429)

    // The owner's access token invalidated.
    const invalidated = await server.signedFetch({ consumer, token: owner, method: 'POST', url: `${server.url}/1.1/oauth/invalidate_token` })
    assert.equal(invalidated.status, 200)

    // A wrong password on the consent page.
    const page = await server.transport({ method: 'GET', url: `${server.url}/oauth/authorize?oauth_token=${rt.token}` })
    const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
    const { user } = await makeUser(server.domain)
    const signIn = await server.transport({
      url: `${server.url}/oauth/authorize`,
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: csrfOf(await page.text()), oauth_token: rt.token, action: 'allow', username: user.screenName, password: 'wrong' }).toString(),
    })
    assert.equal(signIn.status, 401)

    const afterwards = await scrape(server)
    const moved = deltas(counterValues(before.families, 'latchkey_'), counterValues(afterwards.families, 'latchkey_'))
    // The validity cache's counts depend on when the refusals' failure log is written (off the
    // requests' path): its own test below counts them on a sequence without writes.
    const outcomes = Object.fromEntries(Object.entries(moved).filter(([key]) => !key.startsWith('latchkey_http_') && !key.startsWith('latchkey_validity_cache_')))
    assert.deepEqual(outcomes, {
      [seriesKey('latchkey_oauth1_verifications_total', { endpoint: VERIFY, result: 'ok' })]: 1,
      [seriesKey('latchkey_oauth1_verifications_total', { endpoint: VERIFY, result: 'bad_signature' })]: 1,
      [seriesKey('latchkey_oauth1_verifications_total', { endpoint: VERIFY, result: 'nonce_reused' })]: 1,
      [seriesKey('latchkey_oauth1_verifications_total', { endpoint: VERIFY, result: 'timestamp_out_of_bounds' })]: 1,
      [seriesKey('latchkey_oauth1_verifications_total', { endpoint: '/1.1/oauth/invalidate_token', result: 'ok' })]: 1,
      [seriesKey('latchkey_bearer_verifications_total', { result: 'ok' })]: 2,
      [seriesKey('latchkey_tokens_issued_total', { kind: 'bearer_token' })]: 1,
      [seriesKey('latchkey_tokens_invalidated_total', { kind: 'access_token', reason: 'invalidate_token' })]: 1,
      [seriesKey('latchkey_rate_limited_total', { resource: '/application/rate_limit_status', subject: 'app' })]: 1,
      [seriesKey('latchkey_sign_in_attempts_total', { result: 'wrong_password' })]: 1,
    })
    assert.equal(moved[seriesKey('latchkey_http_requests_total', { route: VERIFY, method: 'GET', status: '200' })], 1)
    assert.equal(moved[seriesKey('latchkey_http_requests_total', { route: VERIFY, method: 'GET', status: '401' })], 3)
    assert.equal(moved[seriesKey('latchkey_http_requests_total', { route: RATE_LIMIT_STATUS, method: 'GET', status: '429' })], 1)
    assert.equal(moved[seriesKey('latchkey_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })], 1, 'the first scrape')

    const duration = (text: string) => histogram(text, 'latchkey_http_request_duration_seconds', { route: VERIFY, method: 'GET' })
    assert.equal(duration(afterwards.text).count - duration(before.text).count, 4)
    // In seconds: the four requests together took no longer than the test's own wall time around them.
    const durationSum = duration(afterwards.text).sum - duration(before.text).sum
    assert.ok(durationSum > 0 && durationSum <= (performance.now() - startedAt) / 1000, `${durationSum} s`)
    const skewBefore = histogram(before.text, 'latchkey_clock_skew_seconds')
    const skewAfter = histogram(afterwards.text, 'latchkey_clock_skew_seconds')
    assert.equal(skewAfter.count - skewBefore.count, 5, 'every signed request with a timestamp, refused or not')
    assert.ok(skewAfter.sum - skewBefore.sum >= 3600, 'the stale timestamp is an hour away')

    const storage = (backend: string, operation: string, text: string) => histogram(text, 'latchkey_storage_operation_duration_seconds', { backend, operation }).count
    const database = process.env.LATCHKEY_TEST_DATABASE_URL ? 'postgres' : 'sqlite'
    const lookUps = (text: string) => storage(database, 'credentials.findConsumerWithAccessToken', text)
    // Each signed request with an access token that reaches the database is timed: all five on
    // PostgreSQL without Redis (no cache); else those the validity cache did not answer, the first at least.
    const timed = lookUps(afterwards.text) - lookUps(before.text)
    if (database === 'postgres' && !TEST_REDIS_URL) assert.equal(timed, 5, 'the one statement of each signed request with an access token is timed')
    else assert.ok(timed >= 1 && timed <= 5, `${timed} timed`)
    if (TEST_REDIS_URL) {
      const admitted = (text: string) => storage('redis', 'admissions.admit', text)
      // One call per verified request (its address, charge and nonce): the three signed requests that
      // passed every other check (the replay too), the bearer hand-out and the two bearer calls (the second refused by it).
      assert.equal(admitted(afterwards.text) - admitted(before.text), 6)
    }
  })

  test('the validity cache answers a credential seen since the last write; after a write the database does, and only the database is timed', async () => {
    const app = await makeApp(server.domain)
    const { token } = await issueOwnerToken(server.domain, app.id)
    const verify = () => server.signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret }, method: 'GET', url: `${server.url}${VERIFY}` })
    await server.domain.signatureFailures?.settled()
    const before = await scrape(server)
    for (let i = 0; i < 3; i++) assert.equal((await verify()).status, 200)
    await makeUser(server.domain)
    assert.equal((await verify()).status, 200)
    const afterwards = await scrape(server)

    const moved = deltas(counterValues(before.families, 'latchkey_'), counterValues(afterwards.families, 'latchkey_'))
    const answered = (result: string) => moved[seriesKey('latchkey_validity_cache_lookups_total', { result })] ?? 0
    const database = process.env.LATCHKEY_TEST_DATABASE_URL ? 'postgres' : 'sqlite'
    const timed = (text: string) => histogram(text, 'latchkey_storage_operation_duration_seconds', { backend: database, operation: 'credentials.findConsumerWithAccessToken' }).count
    if (database === 'postgres' && !TEST_REDIS_URL) {
      assert.deepEqual([answered('hit'), answered('miss'), answered('bypass')], [0, 0, 0], 'PostgreSQL without Redis has no cache')
      assert.equal(timed(afterwards.text) - timed(before.text), 4)
    } else if (!TEST_REDIS_URL) {
      assert.deepEqual([answered('hit'), answered('miss'), answered('bypass')], [2, 2, 0], 'the first and the one after the write miss')
      assert.equal(timed(afterwards.text) - timed(before.text), 2, 'the two misses')
    } else {
      // The cache answers at the last generation an admission read: the first request's admission
      // sees this test's writes and it looks up again (two misses); the one after the write is
      // answered from the cache, then looked up again once its admission sees the write.
      assert.deepEqual([answered('hit'), answered('miss'), answered('bypass')], [3, 3, 0], 'the first twice, the one after the write once after its hit')
      assert.equal(timed(afterwards.text) - timed(before.text), 3, 'the three misses')
    }
  })

  test('each kind of refusal is counted under its own result', async () => {
    const app = await makeApp(server.domain, { signatureMethods: ['HMAC-SHA1'] })
    const owner = (await issueOwnerToken(server.domain, app.id)).token
    const suspended = await makeApp(server.domain)
    await updateApp(server.domain, suspended.id, { isSuspended: true })
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const url = `${server.url}${VERIFY}`
    const before = counterValues((await scrape(server)).families, 'latchkey_')

    const refusals = [
      server.signedFetch({ consumer, method: 'GET', url, version: '2.0' }),
      server.signedFetch({ consumer: { key: 'nosuchconsumerkey000000000', secret: 'x' }, method: 'GET', url }),
      server.signedFetch({ consumer: { key: suspended.consumerKey, secret: suspended.consumerSecret }, method: 'GET', url }),
      server.signedFetch({ consumer, token: { key: '1-nosuchtoken', secret: 'x' }, method: 'GET', url }),
      server.signedFetch({ consumer, token: { key: owner.token, secret: owner.secret }, method: 'GET', url, signatureMethod: 'HMAC-SHA256' }),
      server.send({ method: 'GET', url: `${server.url}${RATE_LIMIT_STATUS}`, headers: { authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAnosuchtoken' } }),
    ]
    for (const answer of await Promise.all(refusals)) assert.ok(answer.status >= 400 && answer.status < 500, `refused: ${answer.status} ${answer.text}`)

    const moved = deltas(before, counterValues((await scrape(server)).families, 'latchkey_'))
    // The validity cache's counts depend on when the refusals' failure log is written (off the
    // requests' path): its own test below counts them on a sequence without writes.
    const outcomes = Object.fromEntries(Object.entries(moved).filter(([key]) => !key.startsWith('latchkey_http_') && !key.startsWith('latchkey_validity_cache_')))
    const oauth1 = (result: string) => seriesKey('latchkey_oauth1_verifications_total', { endpoint: VERIFY, result })
    assert.deepEqual(outcomes, {
      [oauth1('malformed')]: 1,
      [oauth1('unknown_consumer')]: 1,
      [oauth1('suspended')]: 1,
      [oauth1('invalid_token')]: 1,
      [oauth1('method_not_allowed')]: 1,
      [seriesKey('latchkey_bearer_verifications_total', { result: 'invalid_token' })]: 1,
    })
  })

  test('no label holds a token, key, secret, user id, screen name or address', async () => {
    const app = await makeApp(server.domain)
    const { token, owner } = await issueOwnerToken(server.domain, app.id)
    const answer = await server.signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret }, method: 'GET', url: `${server.url}${VERIFY}?x=1` })
    assert.equal(answer.status, 200)
    await server.send({ method: 'GET', url: `${server.url}/no/such/${app.consumerKey}` })
    const { text } = await scrape(server)
    for (const value of [app.consumerKey, app.consumerSecret, token.token, token.secret, owner.id, owner.screenName, '127.0.0.1', 'x=1', '/no/such']) {
      assert.ok(!text.includes(value), `${value} is not in the scrape`)
    }
    assert.match(text, /latchkey_http_requests_total\{route="unmatched",method="GET",status="404"\} \d+/)
  })

  test('every metric docs/metrics.md lists is in a scrape, and each has the documented labels', async () => {
    const docs = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8')
    // The reference table: | `name` | type | `label`, `label` | meaning |
    const rows = [...docs.matchAll(/^\| `((?:latchkey|process|nodejs)_[a-z_]+)` \| (\w+) \| ([^|]*) \| ([^|]*) \|$/gm)]
    assert.ok(rows.length >= 12, `docs/metrics.md lists the metrics (${rows.length} rows found)`)
    const { text, families } = await scrape(server)
    for (const [, name, type, labelCell, meaning] of rows) {
      if (TEST_REDIS_URL && meaning!.includes('without Redis')) {
        assert.equal(families.get(name!), undefined, `${name} is not in a scrape with Redis`)
        continue
      }
      const family = families.get(name!)
      assert.ok(family, `${name} is in the scrape`)
      assert.equal(family.type, type!.toUpperCase(), `${name} is a ${type}`)
      const documented = [...labelCell!.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort()
      const series = family.type === 'HISTOGRAM' ? [...histogramSeries(text).keys()].filter((key) => key.startsWith(`${name}_count{`)) : family.metrics.map((m) => seriesKey(name!, m.labels))
      for (const key of series) {
        const labels = [...key.matchAll(/(\w+)="/g)].map((m) => m[1]).sort()
        assert.deepEqual(labels, documented, `${key} has the labels ${documented.join(', ')}`)
      }
    }
  })
})

describe('GET /metrics without --metrics-public', () => {
  test('the public listener does not serve it', async () => {
    const server = await injectedTestServer()
    try {
      const answer = await server.send({ method: 'GET', url: `${server.url}/metrics` })
      assert.equal(answer.status, 404)
      assert.equal(answer.json.errors[0].code, 34)
    } finally {
      await server.close()
    }
  })
})
