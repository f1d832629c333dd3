// A database the development server made, then served in production: the development admin token
// and the demo stop before the first request, and the log says so. On PostgreSQL (where the
// development server keeps no demo file) the admin token is what it made that stops.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { createAdminToken } from '../../../src/domain/admin/admin-tokens.ts'
import { TEST_DATABASE_URL } from '../../helpers/backends.ts'
import { startServe, type ServeProcess } from '../../helpers/serve-process.ts'
import { openTestDomain, type TestDomain } from '../../helpers/test-app.ts'

const PUBLIC = 'https://auth.example.com'

describe('a development database served in production', { timeout: 120_000 }, () => {
  let storage: TestDomain
  const running: ServeProcess[] = []
  before(async () => {
    storage = await openTestDomain()
  })
  after(async () => {
    for (const server of running) await server.stop()
    await storage.close()
  })
  /** The development server's admin token and admin address, from its first start's banner. */
  const developmentStart = async () => {
    const development = await serve(['--dev'])
    const token = /admin token\s+(lkadm_\S+)/.exec(development.output())![1]!
    const adminUrl = /Admin API is listening on (\S+)/.exec(development.output())![1]!
    assert.equal((await adminCall(adminUrl, token, '/apps')).status, 200, 'the twin: in development the token works')
    assert.equal(await development.stop(), 0)
    return token
  }

  const serve = async (args: string[]) => {
    const redis = storage.redis ? ['--redis', storage.redis.url, '--redis-key-prefix', storage.redis.keyPrefix] : []
    const server = await startServe([...args, '--port', '0', '--database', storage.dbPath, ...redis], storage.cliEnv)
    running.push(server)
    return server
  }
  const adminCall = (adminUrl: string, token: string, path: string) => fetch(`${adminUrl}/admin/v1${path}`, { headers: { authorization: `Bearer ${token}` } })
  const logLines = (server: ServeProcess) => server.output().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { level: number; msg: string; adminUrl?: string })

  test('its development admin token is refused, the demo person disabled and the demo app suspended, each said in a warning at start', async () => {
    const devToken = await developmentStart()
    const demoFile = `${storage.dbPath}.demo.json`
    if (!TEST_DATABASE_URL) assert.ok(existsSync(demoFile), 'the development server kept the demo beside the database')

    const production = await serve(['--host', '127.0.0.1', '--trust-proxy', '127.0.0.1', '--public-url', PUBLIC])
    const lines = logLines(production)
    const adminUrl = lines.find((line) => line.msg === 'Latchkey is listening')!.adminUrl!
    const response = await adminCall(adminUrl, devToken, '/apps')
    assert.equal(response.status, 401, 'the development admin token is refused in production')

    const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg)
    assert.match(warnings.join('\n'), /^a development database in production: revoked the development server's admin token \d+ \(named development\)$/m)
    if (TEST_DATABASE_URL) return
    const operator = (await createAdminToken(storage.domain, 'operator')).token
    const [person] = ((await (await adminCall(adminUrl, operator, '/users?screen_name=demo')).json()) as { data: Array<{ disabled: boolean }> }).data
    assert.equal(person?.disabled, true, 'the demo person is disabled')
    const [app] = ((await (await adminCall(adminUrl, operator, '/apps')).json()) as { data: Array<{ name: string; suspended: boolean }> }).data.filter((a) => a.name === 'Demo app')
    assert.equal(app?.suspended, true, 'the demo app is suspended')
    assert.equal(existsSync(demoFile), false, 'the file of dead credentials is gone')
    for (const said of [/suspended the demo app \d+/, /disabled the demo person demo \(\d+\)/, /deleted .*\.demo\.json, which held the demo's credentials/]) {
      assert.match(warnings.join('\n'), said)
    }
  })

  test('with --workers, the primary stops them before any worker listens, and says so', { skip: TEST_DATABASE_URL ? false : 'workers need Redis: the PostgreSQL + Redis pass' }, async () => {
    // A database of its own, made by a development server anew.
    for (const server of running.splice(0)) await server.stop()
    await storage.close()
    storage = await openTestDomain()
    const devToken = await developmentStart()
    const production = await serve(['--host', '127.0.0.1', '--trust-proxy', '127.0.0.1', '--public-url', PUBLIC, '--workers', '2'])
    const lines = logLines(production)
    const listening = lines.find((line) => line.msg === 'Latchkey is listening')!
    assert.equal((await adminCall(listening.adminUrl!, devToken, '/apps')).status, 401)
    assert.match(lines.filter((line) => line.level === 40).map((line) => line.msg).join('\n'), /revoked the development server's admin token/)
  })
})
