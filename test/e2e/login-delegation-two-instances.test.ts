// Login delegation across two `latchkey serve` processes sharing PostgreSQL and Redis (issue 50):
// the sign-in starts on A, the platform answers through B's admin API, the browser comes back
// through B and is signed in there. Chromium, behind what the instances take for a TLS proxy.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { createDomainDeps } from '../../src/composition/root.ts'
import { createAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { openStorage } from '../../src/storage/open-stores.ts'
import type { Storage } from '../../src/storage/types.ts'
import { SHARED_BACKENDS_SKIP, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema, type TestRedisPrefix, type TestSchema } from '../helpers/backends.ts'
import { testKeyring } from '../helpers/keys.ts'
import { startPlatformLogin, PLATFORM_PEOPLE, type PlatformLogin } from '../helpers/platform-login.ts'
import { startServe, type ServeProcess } from '../helpers/serve-process.ts'
import { testDomainSettings } from '../helpers/test-app.ts'
import { launchBrowser, mainText, skipReason, submitWith, VIEWPORT } from './browser/browser.ts'

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The admin listener's URL, from serve's JSON "Latchkey is listening" line. */
const adminUrlOf = (instance: ServeProcess) => /"adminUrl":"([^"]+)"/.exec(instance.output())?.[1]

describe('login delegation across two instances', { skip: SHARED_BACKENDS_SKIP || skipReason, timeout: 180_000 }, () => {
  let schema: TestSchema
  let keys: TestRedisPrefix
  let storage: Storage
  let platform: PlatformLogin
  let browser: Browser
  let instances: ServeProcess[] = []
  let portB: number

  before(async () => {
    schema = await createTestSchema()
    keys = createTestRedisPrefix()
    storage = await openStorage({ keyring: testKeyring(), databaseUrl: schema.url, redisUrl: TEST_REDIS_URL, redisKeyPrefix: keys.prefix })
    const domain = createDomainDeps(storage, testDomainSettings())
    platform = await startPlatformLogin()
    browser = await launchBrowser()
    portB = await freePort()
    const shared = [
      ...['--host', '127.0.0.1', '--admin-host', '127.0.0.1', '--admin-port', '0', '--trust-proxy', '127.0.0.1'],
      ...['--database', schema.url, '--redis', TEST_REDIS_URL!, '--redis-key-prefix', keys.prefix],
      ...['--cookie-secret', 'two-instances-cookie-secret-0123456789', '--log-level', 'info'],
      ...['--login-url', platform.loginUrl, '--login-name', 'Platform'],
    ]
    instances = await Promise.all([startServe([...shared, '--port', '0']), startServe([...shared, '--port', String(portB), '--public-url', `http://127.0.0.1:${portB}`])])
    const adminB = adminUrlOf(instances[1]!)
    assert.ok(adminB, instances[1]!.output())
    platform.admin = { url: adminB, token: (await createAdminToken(domain, 'platform')).token }
  })

  after(async () => {
    await browser?.close()
    await Promise.all(instances.map((instance) => instance.stop()))
    await platform?.close()
    await storage?.runtime.close()
    await schema?.drop()
    await keys?.clean()
  })

  test('started on A, accepted through B, back through B: signed in on B', async () => {
    const [a] = instances
    const context = await browser.newContext({ viewport: VIEWPORT, extraHTTPHeaders: { 'x-forwarded-proto': 'https' } })
    const page = await context.newPage()
    await page.goto(`${a!.url}/console`)
    await page.click('#sign_in_with_login')
    await page.waitForURL((url) => url.href.startsWith(platform.loginUrl))
    await page.fill('#platform_username', 'carol')
    await page.fill('#platform_password', PLATFORM_PEOPLE.carol!.password)
    const back = await submitWith(page, '#platform_sign_in')
    assert.equal(back.status(), 200, await mainText(page))
    assert.equal(new URL(page.url()).origin, `http://127.0.0.1:${portB}`, 'the browser came back through B')
    assert.match(await mainText(page), /carol/i)
    const logs = instances.map((instance) => instance.output()).join('\n')
    for (const challenge of platform.challenges) assert.ok(!logs.includes(challenge), `no login_challenge in the logs:\n${logs.split('\n').filter((l) => l.includes(challenge)).join('\n')}`)
    await context.close()
  })
})
