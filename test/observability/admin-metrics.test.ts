import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { loadConfig } from '../../src/config/load.ts'
import { createAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { startServer, type RunningServer } from '../../src/server.ts'
import { TEST_MASTER_KEY } from '../helpers/keys.ts'

// Issue 15: Prometheus scrapes the admin listener with an admin token, as its `authorization` setting sends it.
describe('GET /metrics on the admin listener', () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-admin-metrics-'))
  let server: RunningServer
  before(async () => {
    server = await startServer(
      loadConfig({ env: {}, flags: { dev: true, port: 0, adminPort: 0, database: join(dir, 'metrics.sqlite'), masterKey: TEST_MASTER_KEY, logLevel: 'silent' } }),
    )
  })
  after(async () => {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test('answers the Prometheus text to an admin token, 401 without one, and never on the public port by default', async () => {
    const { token } = await createAdminToken(server.domain, 'prometheus')
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
    const scrape = await fetch(`${server.adminUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })
    assert.equal(scrape.status, 200)
    assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
    assert.match(await scrape.text(), /^latchkey_http_requests_total\{route="\/healthz",method="GET",status="200"\} 1$/m)
    const anonymous = await fetch(`${server.adminUrl}/metrics`)
    assert.equal(anonymous.status, 401)
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/)
    assert.equal((await fetch(`${server.url}/metrics`)).status, 404)
    // Not an operation of the admin API: its OpenAPI document does not list it.
    const document = (await (await fetch(`${server.adminUrl}/admin/v1/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).json()) as { paths: Record<string, unknown> }
    assert.ok(Object.keys(document.paths).length > 5)
    assert.equal('/metrics' in document.paths, false)
  })
})
