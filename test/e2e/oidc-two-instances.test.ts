// An OpenID Connect sign-in started on one `latchkey serve` and finished on another, sharing
// PostgreSQL and Redis behind what they take for a TLS proxy (issue 50).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { SHARED_BACKENDS_SKIP, TEST_REDIS_URL, createTestRedisPrefix, createTestSchema, type TestRedisPrefix, type TestSchema } from '../helpers/backends.ts'
import { CLIENT } from '../helpers/oidc-setup.ts'
import { listenProviderHost, signInAtProvider, type ProviderAccount, type ProviderHost } from '../helpers/oidc-provider.ts'
import { startServe, type ServeProcess } from '../helpers/serve-process.ts'

const PUBLIC = 'https://api.latchkey.test'
const FORWARDED = { 'x-forwarded-proto': 'https' }

/** A browser over real HTTP: the proxy's header, its cookies kept, no redirect followed. */
class ProxiedBrowser {
  readonly cookies = new Map<string, string>()
  async get(base: string, path: string): Promise<{ status: number; location: string | null; text: string }> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(`${base}${path}`, { redirect: 'manual', headers: { ...FORWARDED, ...(cookie ? { cookie } : {}) } })
    for (const set of response.headers.getSetCookie()) {
      const [pair = ''] = set.split(';')
      const at = pair.indexOf('=')
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1))
    }
    return { status: response.status, location: response.headers.get('location'), text: await response.text() }
  }
}

describe('OpenID Connect sign-in across two instances on PostgreSQL + Redis', { skip: SHARED_BACKENDS_SKIP, timeout: 180_000 }, () => {
  let schema: TestSchema
  let keys: TestRedisPrefix
  let host: ProviderHost
  let dir: string
  let instances: ServeProcess[] = []
  const accounts = new Map<string, ProviderAccount>()

  before(async () => {
    schema = await createTestSchema()
    keys = createTestRedisPrefix()
    host = await listenProviderHost()
    host.serve({ clients: [{ ...CLIENT, redirectUris: [`${PUBLIC}/login/oidc/acme/callback`] }], accounts })
    dir = mkdtempSync(join(tmpdir(), 'latchkey-oidc-'))
    const providers = join(dir, 'providers.json')
    writeFileSync(providers, JSON.stringify([{ id: 'acme', issuer: host.issuer, client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret, display_name: 'Acme' }]))
    const args = [
      ...['--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1', '--public-url', PUBLIC],
      ...['--database', schema.url, '--redis', TEST_REDIS_URL!, '--redis-key-prefix', keys.prefix],
      ...['--cookie-secret', 'oidc-two-instances-cookie-secret-0123456789', '--log-level', 'info', '--oidc-providers', providers],
    ]
    instances = await Promise.all([startServe(args), startServe(args)])
  })

  after(async () => {
    await Promise.all(instances.map((instance) => instance.stop()))
    await schema?.drop()
    await keys?.clean()
    await host?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  test('started on A, back on B: signed in on both; the same return again is refused on A; no code in either log', async () => {
    const [a, b] = instances as [ServeProcess, ServeProcess]
    accounts.set('sub-twin', { claims: { preferred_username: 'twin', name: 'Twin' } })
    const browser = new ProxiedBrowser()
    const start = await browser.get(a.url, '/login/oidc/acme?return_to=%2Fconsole')
    assert.equal(start.status, 302, start.text)
    const callback = new URL(await signInAtProvider(start.location!, 'sub-twin'))
    assert.equal(callback.origin, PUBLIC)
    const path = `${callback.pathname}${callback.search}`
    const back = await browser.get(b.url, path)
    assert.equal(back.status, 302, back.text)
    assert.equal(back.location, '/console')
    for (const instance of [a, b]) assert.match((await browser.get(instance.url, '/console')).text, /Sign out @twin/)
    const replayed = await browser.get(a.url, path)
    assert.equal(replayed.status, 410)
    const code = callback.searchParams.get('code')!
    for (const instance of [a, b]) assert.ok(!instance.output().includes(code), 'the code is never logged')
  })
})
