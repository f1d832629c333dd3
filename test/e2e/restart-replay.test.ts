import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { errorCode, send, signRequest, type HttpAnswer } from '../helpers/oauth1-client.ts'
import { startServe, type ServeProcess } from '../helpers/serve-process.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-app.ts'
import { startThrowawayRedis } from '../helpers/throwaway-services.ts'

/** Clients sign for this URL whatever port the server has now (the port changes with a restart). */
const PUBLIC = 'https://api.latchkey.test'
const VERIFY = '/1.1/account/verify_credentials.json'

function serveArgs(storage: TestDomain, redis?: { url: string; keyPrefix: string }): string[] {
  const args = ['--dev', '--port', '0', '--public-url', PUBLIC, '--database', storage.dbPath, '--rate-limit-multiplier', '100']
  const shared = redis ?? storage.redis
  if (shared) args.push('--redis', shared.url, '--redis-key-prefix', shared.keyPrefix)
  return args
}

interface Credentials {
  consumer: { key: string; secret: string }
  token: { key: string; secret: string }
}

async function register(storage: TestDomain): Promise<Credentials> {
  const app: AppRecord = await makeApp(storage.domain)
  const { token } = await issueOwnerToken(storage.domain, app.id)
  return { consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret } }
}

/** A signed verify_credentials request, to be sent (and replayed) to whichever server runs now. */
function signedVerify(credentials: Credentials, timestamp?: number) {
  const request = signRequest({ ...credentials, method: 'GET', url: `${PUBLIC}${VERIFY}`, ...(timestamp === undefined ? {} : { timestamp }) })
  return (server: ServeProcess): Promise<HttpAnswer> => send({ ...request, url: `${server.url}${VERIFY}` })
}

/** A client whose clock reads a second or two after now: its requests are after any epoch set just now. */
const aMomentLater = () => Math.floor(Date.now() / 1000) + 2

describe('a restart of the server never reopens a replay window', { timeout: 120_000 }, () => {
  let storage: TestDomain
  let server: ServeProcess | undefined

  before(async () => {
    storage = await openTestDomain()
  })
  after(async () => {
    await server?.stop()
    await storage.close()
  })

  test('a request answered before the restart is refused after it (135 in memory, 32 with Redis), and a new one is served', async () => {
    const credentials = await register(storage)
    server = await startServe(serveArgs(storage))
    const request = signedVerify(credentials)
    assert.equal((await request(server)).status, 200)
    const replay = await request(server)
    assert.deepEqual([replay.status, errorCode(replay)], [401, 32], 'a replay before the restart')

    assert.equal(await server.stop(), 0)
    server = await startServe(serveArgs(storage))
    const afterRestart = await request(server)
    // In memory the nonce is gone: the request predates the store's epoch. Redis still holds it.
    assert.deepEqual([afterRestart.status, errorCode(afterRestart)], storage.redis ? [401, 32] : [401, 135], afterRestart.text)
    const fresh = await signedVerify(credentials)(server)
    assert.equal(fresh.status, 200, `a request signed after the restart: ${fresh.text}`)
  })
})

describe('Redis losing its nonces never reopens a replay window', { timeout: 120_000 }, () => {
  let storage: TestDomain
  let server: ServeProcess | undefined
  let redis: Awaited<ReturnType<typeof startThrowawayRedis>>
  let client: Redis | undefined
  let credentials: Credentials
  const keyPrefix = 'latchkey_restart_test:'

  before(async () => {
    redis = await startThrowawayRedis()
    if ('skip' in redis) return
    storage = await openTestDomain()
    credentials = await register(storage)
    server = await startServe(serveArgs(storage, { url: redis.url, keyPrefix }))
    client = new Redis(redis.url, { maxRetriesPerRequest: 1 })
    client.on('error', () => {})
  })
  after(async () => {
    client?.disconnect()
    await server?.stop()
    await storage?.close()
    if (!('skip' in redis)) await redis.destroy()
  })

  /** Answers of `request` until one is not 503 (Redis reconnecting after a restart). */
  async function answerOnceUp(request: (server: ServeProcess) => Promise<HttpAnswer>): Promise<HttpAnswer> {
    for (;;) {
      const answer = await request(server!)
      if (answer.status !== 503) return answer
      await sleep(100)
    }
  }

  const cases: Array<[string, () => Promise<void>]> = [
    ['Redis flushed (FLUSHALL)', async () => void (await client!.flushall())],
    ['Redis restarted without its data', async () => {
      if ('skip' in redis) return
      await redis.stop()
      await redis.start()
    }],
    // A promoted replica holds the marker it copied from the old primary, with the old run id, but
    // may have missed the last nonces: a marker of another run id counts as a loss.
    ['the epoch marker written under another Redis run id (a failover)', async () => void (await client!.hset(`${keyPrefix}nonce:epoch`, 'run', 'another-server'))],
  ]
  for (const [what, lose] of cases) {
    test(`${what} between a request and its replay: the replay gets 401 code 135, a new request 200`, async (t) => {
      if ('skip' in redis) return t.skip(redis.skip)
      // Requests signed within the second after a loss are refused once (135): the previous test's
      // loss must be a second old before this test signs its first request.
      await sleep(1000)
      const request = signedVerify(credentials)
      assert.equal((await request(server!)).status, 200)
      await lose()
      const replay = await answerOnceUp(request)
      assert.deepEqual([replay.status, errorCode(replay)], [401, 135], replay.text)
      const fresh = await signedVerify(credentials, aMomentLater())(server!)
      assert.equal(fresh.status, 200, fresh.text)
      const freshReplay = await answerOnceUp(signedVerify(credentials, aMomentLater()))
      assert.equal(freshReplay.status, 200, 'requests keep being served')
    })
  }

  test('a Redis full at maxmemory with noeviction gives 503 code 130 and a clear log line, and recovers when memory frees', async (t) => {
    if ('skip' in redis) return t.skip(redis.skip)
    assert.equal((await signedVerify(credentials, aMomentLater())(server!)).status, 200)
    const used = Number(/^used_memory:(\d+)/m.exec(await client!.info('memory'))![1])
    await client!.config('SET', 'maxmemory-policy', 'noeviction')
    await client!.config('SET', 'maxmemory', String(used + 1024 * 1024))
    // Big values first, then small ones: full to the last few bytes, so that no write fits.
    for (const size of [64 * 1024, 1024, 16]) {
      try {
        for (let i = 0; ; i++) await client!.set(`filler:${size}:${i}`, 'x'.repeat(size))
      } catch (error) {
        assert.match((error as Error).message, /^OOM/)
      }
    }
    const refused = await signedVerify(credentials, aMomentLater())(server!)
    assert.deepEqual([refused.status, errorCode(refused)], [503, 130], refused.text)
    // The development server's log lines go through a worker thread: they show up a moment later.
    const clearLine = /Redis unavailable: OOM command not allowed when used memory > 'maxmemory'/
    for (let waited = 0; !clearLine.test(server!.output()) && waited < 10_000; waited += 100) await sleep(100)
    assert.match(server!.output(), clearLine)

    await client!.config('SET', 'maxmemory', '0')
    const served = await signedVerify(credentials, aMomentLater())(server!)
    assert.equal(served.status, 200, served.text)
  })
})
