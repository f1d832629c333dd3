// PostgreSQL + Redis: what a steady verified request costs in Redis, counted with MONITOR. Its
// admission (the address's budget, the app's charge, the nonce and the credentials' generation) is
// one script; the validity cache answers its lookup from memory and needs no read of its own.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Redis } from 'ioredis'
import { commandsSentDuring } from '../../bench/redis-monitor.ts'
import { SHARED_BACKENDS_SKIP, TEST_REDIS_URL } from '../helpers/backends.ts'
import { issueEveryCredential } from '../helpers/fixtures.ts'
import { signRequest } from '../helpers/oauth1-client.ts'
import { injectedTestServer, type TestServer } from '../helpers/test-app.ts'

describe('Redis round trips of a verified request (PostgreSQL + Redis)', { skip: SHARED_BACKENDS_SKIP }, () => {
  let server: TestServer
  let client: Redis
  before(async () => {
    server = await injectedTestServer()
    client = new Redis(TEST_REDIS_URL!)
  })
  after(async () => {
    client?.disconnect()
    await server?.close()
  })

  /** The commands of this server's key prefix that Redis ran during `work`, each by its name. */
  const commandsDuring = (work: () => Promise<void>) => commandsSentDuring(TEST_REDIS_URL!, client, server.redis!.keyPrefix, work)

  test('a signed request and an app-only bearer call (its own limit\'s state, which its admission answers) each send one command, once the cache is warm', async () => {
    const { consumer, token, bearer } = await issueEveryCredential(server.domain)
    const signed = async () => {
      const answer = await server.send(signRequest({ consumer, token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` }))
      assert.equal(answer.status, 200, answer.text)
    }
    const bearerCall = async () => {
      const answer = await server.send({ method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json?resources=application`, headers: { authorization: `Bearer ${bearer}` } })
      assert.equal(answer.status, 200, answer.text)
    }
    // The first calls fill the cache at the generation their admissions read.
    for (let i = 0; i < 2; i++) {
      await signed()
      await bearerCall()
    }
    const commands = await commandsDuring(async () => {
      for (let i = 0; i < 5; i++) {
        await signed()
        await bearerCall()
      }
    })
    assert.deepEqual(commands, Array(10).fill('evalsha'), commands.join(' '))
  })

  test('a write elsewhere is seen by the next request, at no extra round trip until then', async () => {
    const { consumer, token, app } = await issueEveryCredential(server.domain)
    const signed = () => server.send(signRequest({ consumer, token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` }))
    assert.equal((await signed()).status, 200)
    assert.equal((await signed()).status, 200)
    // Another instance (here, a direct write and a move of the shared generation) suspends the app.
    await server.domain.stores.apps.update(app.id, { isSuspended: true }, Date.now())
    const refused = await signed()
    assert.equal(refused.status, 401, refused.text)
    assert.equal(JSON.parse(refused.text).errors[0].code, 416)
  })
})
