import assert from 'node:assert/strict'
import { get } from 'node:http'
import { readdirSync, readFileSync } from 'node:fs'
import { after, describe, test } from 'node:test'
import { runCli } from '../../helpers/cli.ts'
import { SHARED_BACKENDS_SKIP, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema, type TestRedisPrefix, type TestSchema } from '../../helpers/backends.ts'
import { parseScrape, seriesKey, counterValues } from '../../helpers/prometheus-text.ts'
import { startServe } from '../../helpers/serve-process.ts'
import { sparePort } from '../../helpers/throwaway-services.ts'

/** The worker processes of the primary `pid`: its children running the CLI. From /proc, Linux. */
function childrenOf(pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid !== pid) continue
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      if (command.includes('bin/latchkey.js')) children.push(Number(entry))
    } catch {
      // the process ended while we looked
    }
  }
  return children
}

/** GET on a connection of its own (no keep-alive), so the kernel hands each one to the next worker. */
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode ?? 0))
    }).on('error', reject)
  })
}

async function waitFor(check: () => boolean, withinMs: number, what: string): Promise<void> {
  const deadline = Date.now() + withinMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('latchkey serve --workers', () => {
  test('refuses more than one worker without Redis, in one line', async () => {
    const result = await runCli(['serve', '--dev', '--port', '0', '--workers', '2'], { LATCHKEY_DATABASE_URL: ':memory:' })
    assert.equal(result.code, 1)
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
    assert.match(result.stderr, /^latchkey: .*workers.*--redis/)
  })

  describe('with PostgreSQL and Redis', { skip: SHARED_BACKENDS_SKIP, timeout: 180_000 }, () => {
    let schema: TestSchema | undefined
    let keys: TestRedisPrefix | undefined
    after(async () => {
      await schema?.drop()
      await keys?.clean()
    })

    test('--metrics-public: one scrape returns every worker\'s counters, summed by the primary', async () => {
      const metricsSchema = await createTestSchema()
      const metricsKeys = createTestRedisPrefix()
      const served = await startServe(
        ['--dev', '--port', String(await sparePort()), '--workers', '2', '--metrics-public', '--database', metricsSchema.url, '--redis', TEST_REDIS_URL!, '--redis-key-prefix', metricsKeys.prefix],
      )
      try {
        await waitFor(() => childrenOf(served.child.pid!).length === 2 && publicListeners(served.output(), served.url) === 2, 30_000, 'two listening workers')
        const statuses = []
        for (let i = 0; i < 20; i++) statuses.push(await getOnNewConnection(`${served.url}/healthz`))
        assert.deepEqual(statuses, Array(20).fill(200))
        // Each scrape lands on either worker; each answers the same total, the sum of both.
        for (let i = 0; i < 4; i++) {
          const response = await fetch(`${served.url}/metrics`, { headers: { connection: 'close' } })
          assert.equal(response.status, 200)
          const counters = counterValues(parseScrape(await response.text()), 'latchkey_http_requests_total')
          assert.equal(counters.get(seriesKey('latchkey_http_requests_total', { route: '/healthz', method: 'GET', status: '200' })), 20)
        }
      } finally {
        assert.equal(await served.stop(), 0, served.output())
        await metricsSchema.drop()
        await metricsKeys.clean()
      }
    })

    test('N workers share the port; seeding and the banner happen once; a killed worker is replaced; SIGTERM drains all and exits 0', async () => {
      schema = await createTestSchema()
      keys = createTestRedisPrefix()
      const adminPort = await sparePort()
      const served = await startServe(
        ['--dev', '--port', String(await sparePort()), '--admin-port', String(adminPort), '--workers', '3', '--database', schema.url, '--redis', TEST_REDIS_URL!, '--redis-key-prefix', keys.prefix, '--log-level', 'info'],
      )
      const primary = served.child.pid!
      try {
        assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/)
        // Each worker logs "Server listening at" once it has the port.
        const listening = () => publicListeners(served.output(), served.url)
        await waitFor(() => childrenOf(primary).length === 3 && listening() === 3, 30_000, 'three listening workers')
        const answers = await Promise.all(Array.from({ length: 12 }, () => fetch(`${served.url}/readyz`)))
        assert.deepEqual(answers.map((r) => r.status), Array(12).fill(200))
        await new Promise((resolve) => setTimeout(resolve, 500))
        assert.equal(served.output().match(/Latchkey is listening on/g)?.length, 1, served.output())
        assert.equal(served.output().match(/sign in as/g)?.length, 1, 'the demo is seeded and shown once')
        // The primary's banner names the admin listener too, once, as a single process does; the demo's curl line uses it.
        const adminUrl = `http://127.0.0.1:${adminPort}`
        assert.equal(served.output().match(/Admin API is listening on .*/g)?.join(), `Admin API is listening on ${adminUrl}`, served.output())
        assert.match(served.output(), new RegExp(`admin API +curl .* ${adminUrl}/admin/v1/apps`))
        assert.equal((await fetch(`${adminUrl}/admin/v1/apps`)).status, 401, 'the admin listener answers there')

        const [victim] = childrenOf(primary)
        process.kill(victim!, 'SIGKILL')
        await waitFor(() => served.output().includes(`worker ${victim} exited`), 10_000, 'the primary to notice')
        assert.match(served.output(), new RegExp(`worker ${victim} exited \\(SIGKILL\\); starting another`))
        assert.equal((await fetch(`${served.url}/healthz`)).status, 200, 'the other workers go on serving')
        await waitFor(() => childrenOf(primary).length === 3 && !childrenOf(primary).includes(victim!) && listening() === 4, 30_000, 'a replacement')
        const again = await Promise.all(Array.from({ length: 6 }, () => fetch(`${served.url}/healthz`)))
        assert.deepEqual(again.map((r) => r.status), Array(6).fill(200))
      } finally {
        const workers = childrenOf(primary)
        assert.equal(await served.stop(), 0, served.output())
        for (const pid of workers) assert.throws(() => process.kill(pid, 0), `worker ${pid} is gone`)
      }
    })
  })
})

/** Workers listening on the public port: each also logs its admin listener (--dev opens it), which does not count. */
function publicListeners(output: string, url: string): number {
  return output.split('\n').filter((line) => line.includes(`Server listening at ${url}`)).length
}
