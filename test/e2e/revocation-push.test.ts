// The revocation push across real processes (issue 49, item 3): a `serve` killed with SIGKILL in
// the middle of a delivery re-sends after its restart (nothing lost, a duplicate keeps its id);
// on PostgreSQL + Redis two instances deliver each event once.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { after, afterEach, before, describe, test } from 'node:test'
import { rotateAppKeys } from '../../src/domain/registry/apps.ts'
import { addWebhook, verifyWebhook, webhookStatus } from '../../src/domain/revocations/webhooks.ts'
import { eventually } from '../helpers/eventually.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { startServe, type ServeProcess } from '../helpers/serve-process.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-app.ts'
import { hmacOf, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts'

/** `serve` on the test's database (with its Redis on the PostgreSQL pass); a webhook attempt gives up after a second. */
function serve(storage: TestDomain): Promise<ServeProcess> {
  const args = ['--dev', '--port', '0', '--database', storage.dbPath, '--webhook-timeout', '1', '--log-level', 'warn']
  if (storage.redis) args.push('--redis', storage.redis.url, '--redis-key-prefix', storage.redis.keyPrefix)
  return startServe(args)
}

describe('revocation push across processes', { timeout: 120_000 }, () => {
  let storage: TestDomain
  let receiver: WebhookReceiver
  const servers: ServeProcess[] = []

  before(async () => {
    storage = await openTestDomain()
  })
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()))
    await receiver?.close()
  })
  after(() => storage.close())

  /** A verified endpoint for every event, on a fresh receiver. */
  async function register(): Promise<string> {
    receiver = await startWebhookReceiver()
    const { endpoint, secret } = await addWebhook(storage.domain, { url: receiver.url })
    receiver.secret = secret
    await verifyWebhook(storage.domain, endpoint.id)
    return endpoint.id
  }

  /** `count` credential ends (key rotations), in order: the apps whose keys were rotated. */
  async function endCredentials(count: number): Promise<string[]> {
    const ids: string[] = []
    for (let i = 0; i < count; i++) {
      const app = await makeApp(storage.domain)
      await rotateAppKeys(storage.domain, app.id)
      ids.push(app.id)
    }
    return ids
  }

  test('a server killed (SIGKILL) in the middle of a delivery re-sends it after a restart: every event arrives, in order, a duplicate with the same id and body', async () => {
    const id = await register()
    receiver.status = 0
    const apps = await endCredentials(4)
    const first = await serve(storage)
    servers.push(first)
    await eventually(async () => assert.equal(receiver.posts.length, 1, 'the first delivery is in flight'), 20_000)
    const inFlight = receiver.posts[0]!
    const exited = once(first.child, 'exit')
    first.child.kill('SIGKILL')
    await exited
    receiver.status = 200
    servers.push(await serve(storage))
    // The killed process's lease must expire first (docs/revocation-push.md).
    const taken = await eventually(async () => {
      assert.equal(receiver.taken().length, apps.length)
      return receiver.taken()
    }, 60_000)
    assert.deepEqual(taken.map((d) => d.event.app_id), apps, 'nothing lost, in the order the credentials ended')
    assert.equal(taken[0]!.event.id, inFlight.event.id, 'the delivery cut short is sent again with the same id')
    assert.equal(taken[0]!.body, inFlight.body, 'and the same body')
    for (const delivery of taken) assert.equal(delivery.headers['x-latchkey-signature'], hmacOf(receiver.secret!, delivery.body))
    const status = (await webhookStatus(storage.domain)).find((endpoint) => endpoint.id === id)
    assert.deepEqual([status?.pending, status?.failed], [0, 0])
  })

  test('two instances on PostgreSQL + Redis deliver each event once', { skip: process.env.LATCHKEY_TEST_DATABASE_URL ? false : 'one server per SQLite file: runs on the PostgreSQL + Redis pass' }, async () => {
    await register()
    servers.push(...(await Promise.all([serve(storage), serve(storage)])))
    const apps = await endCredentials(12)
    const taken = await eventually(async () => {
      assert.equal(receiver.taken().length, apps.length)
      return receiver.taken()
    }, 30_000)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    assert.equal(receiver.posts.length, apps.length, 'no event sent twice')
    assert.deepEqual(taken.map((d) => d.event.app_id), apps)
  })
})
