import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import pino from 'pino'
import { composeApp } from '../../src/composition/apps.ts'
import { lazyChildLogger } from '../../src/web/access-log.ts'
import { loadConfig } from '../../src/config/load.ts'
import { openTestDomain } from '../helpers/test-app.ts'

/** The app as `serve` builds it (development mode: plain HTTP), logging to an array of lines. */
async function appLogging(t: TestContext, accessLog: boolean | undefined) {
  const domain = await openTestDomain()
  const lines: string[] = []
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) })
  const http = { dev: true, publicUrl: undefined, trustProxy: [], cookieSecret: 'x'.repeat(32), ...(accessLog === undefined ? {} : { accessLog }) }
  const app = await composeApp({ domain: domain.domain, logger, http })
  t.after(async () => {
    await app.close()
    await domain.close()
  })
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  return { app, lines, parsed, logger }
}

describe('the access log', () => {
  test('one line per request, as pino itself writes it: method, the path without its query, status, ms, address, user agent, request id', async (t) => {
    const { app, lines, parsed, logger } = await appLogging(t, undefined)
    const answer = await app.inject({ method: 'GET', url: '/healthz?oauth_verifier=s3cret&x=1', remoteAddress: '198.51.100.7', headers: { 'user-agent': 'curl/8.5.0' } })
    assert.equal(answer.statusCode, 200)
    assert.equal(lines.length, 1)
    const [line] = parsed()
    assert.equal(line!.msg, 'request')
    assert.equal(line!.path, '/healthz')
    assert.equal(line!.method, 'GET')
    assert.equal(line!.status, 200)
    assert.equal(typeof line!.ms, 'number')
    assert.equal(typeof line!.reqId, 'string')
    assert.equal(line!.addr, '198.51.100.7')
    assert.equal(line!.ua, 'curl/8.5.0')
    assert.ok(!lines[0]!.includes('s3cret'), 'the query is never logged')
    // Byte for byte what request.log.info({ method, path, status, ms }, 'request') writes, time aside.
    const own: string[] = []
    const reference = pino({ level: 'info' }, { write: (text: string) => void own.push(text) })
    reference.child({ reqId: line!.reqId }, {}).info({ method: 'GET', path: '/healthz', status: 200, ms: line!.ms, addr: '198.51.100.7', ua: 'curl/8.5.0' }, 'request')
    const withoutTime = (text: string) => text.replace(/"time":\d+/, '"time":0').replace(/"pid":\d+/, '"pid":0')
    assert.equal(withoutTime(lines[0]!), withoutTime(own[0]!))
    assert.equal(logger.level, 'info')
  })

  test('refusals are logged too, with their status; a refusal line and the access line share the request id', async (t) => {
    const { app, parsed } = await appLogging(t, true)
    const answer = await app.inject({ method: 'GET', url: '/1.1/account/verify_credentials.json', headers: { authorization: 'OAuth oauth_consumer_key="nope"' } })
    assert.equal(answer.statusCode, 400)
    const access = parsed().find((entry) => entry.msg === 'request')
    const refused = parsed().find((entry) => entry.msg === 'request refused')
    assert.equal(access?.status, 400)
    assert.equal(access?.path, '/1.1/account/verify_credentials.json')
    assert.ok(refused, 'the refusal has its own line')
    assert.equal(refused.reqId, access.reqId)
    const other = await app.inject({ method: 'GET', url: '/healthz' })
    assert.equal(other.statusCode, 200)
    const ids = parsed()
      .filter((entry) => entry.msg === 'request')
      .map((entry) => entry.reqId)
    assert.equal(new Set(ids).size, 2, 'each request has an id of its own')
  })

  test('a user agent is cut at 200 characters, and escaped; none is an empty one', async (t) => {
    const { app, parsed } = await appLogging(t, undefined)
    await app.inject({ method: 'GET', url: '/healthz', headers: { 'user-agent': `"quoted" ${'x'.repeat(300)}` } })
    // inject sends a user agent of its own unless told none.
    await app.inject({ method: 'GET', url: '/healthz', headers: { 'user-agent': undefined as unknown as string } })
    const [long, none] = parsed()
    assert.equal(long!.ua, `"quoted" ${'x'.repeat(191)}`)
    assert.equal(none!.ua, '')
  })

  test('a logger set above info writes no access line', async (t) => {
    const domain = await openTestDomain()
    const lines: string[] = []
    const app = await composeApp({ domain: domain.domain, logger: pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }), http: { dev: true, publicUrl: undefined, trustProxy: [], cookieSecret: 'x'.repeat(32) } })
    t.after(async () => {
      await app.close()
      await domain.close()
    })
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
    assert.deepEqual(lines, [])
  })

  test('--access-log off writes no request line and keeps every other line', async (t) => {
    const { app, parsed } = await appLogging(t, false)
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
    const refused = await app.inject({ method: 'GET', url: '/1.1/account/verify_credentials.json', headers: { authorization: 'OAuth oauth_consumer_key="nope"' } })
    assert.equal(refused.statusCode, 400)
    assert.deepEqual(
      parsed().map((entry) => entry.msg),
      ['request refused'],
    )
  })

  test('--access-log takes on or off (default on); anything else is refused at start', () => {
    assert.equal(loadConfig({ env: {}, flags: {} }).accessLog, true)
    assert.equal(loadConfig({ env: {}, flags: { accessLog: 'off' } }).accessLog, false)
    assert.equal(loadConfig({ env: { LATCHKEY_ACCESS_LOG: 'on' }, flags: {} }).accessLog, true)
    assert.throws(() => loadConfig({ env: {}, flags: { accessLog: 'quiet' } }), /access/i)
  })
})

describe("a request's logger", () => {
  const logging = (level: string) => {
    const lines: string[] = []
    const parent = pino({ level }, { write: (line: string) => void lines.push(line) })
    return { parent, entries: () => lines.map((line) => JSON.parse(line) as { level: number; msg: string; reqId?: string; extra?: number }) }
  }

  test('writes at every level, with its bindings, only once used; its level is its options\' or its parent\'s until then', () => {
    const { parent, entries } = logging('trace')
    const child = lazyChildLogger(parent, { reqId: 'r1' }, {})
    assert.equal(child.level, 'trace', "the parent's level, before any use")
    assert.equal(lazyChildLogger(parent, { reqId: 'r2' }, { level: 'warn' }).level, 'warn', "the options' level")
    child.fatal('one')
    child.error('two')
    child.warn('three')
    child.info({ extra: 4 }, 'four')
    child.debug('five')
    child.trace('six')
    ;(child.silent as () => void)()
    assert.deepEqual(
      entries().map(({ level, msg, reqId }) => [level, msg, reqId]),
      [
        [60, 'one', 'r1'],
        [50, 'two', 'r1'],
        [40, 'three', 'r1'],
        [30, 'four', 'r1'],
        [20, 'five', 'r1'],
        [10, 'six', 'r1'],
      ],
    )
    assert.equal(entries()[3]!.extra, 4)
  })

  test('its level can be set, and its own children carry its bindings and theirs', () => {
    const { parent, entries } = logging('trace')
    const child = lazyChildLogger(parent, { reqId: 'r3' }, {})
    child.level = 'error'
    assert.equal(child.level, 'error')
    child.warn('dropped')
    child.error('kept')
    child.child({ part: 'inner' }).error('nested')
    assert.deepEqual(
      entries().map((entry) => [entry.msg, entry.reqId, (entry as { part?: string }).part]),
      [
        ['kept', 'r3', undefined],
        ['nested', 'r3', 'inner'],
      ],
    )
    assert.equal(parent.level, 'trace', "the parent's level is its own")
  })
})
