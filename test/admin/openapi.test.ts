// Issue 13: both OpenAPI documents are valid OpenAPI 3.1, checked in and current, served as they are
// built, and every admin operation's answers match the schemas the admin document gives for them.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { validate, compileErrors } from '@readme/openapi-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { OPENAPI_FILES, renderDocument } from '../../scripts/openapi-docs.ts'
import { renderAdminOpenApi } from '../../src/admin/app.ts'
import type { HttpSettings } from '../../src/app.ts'
import { publicOpenApi } from '../../src/http/openapi-public.ts'
import { injectedAdminTestServer, type AdminAnswer, type AdminTestServer } from '../helpers/admin.ts'
import { makeUser } from '../helpers/fixtures.ts'
import { buildTestApp } from '../helpers/test-app.ts'
import { HASH_VECTORS } from '../helpers/imported-hash-vectors.ts'
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts'

type Document = { paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: object }> }> }>> }

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

describe('the OpenAPI documents', () => {
  test('docs/ holds the documents the code builds (npm run docs:openapi)', async () => {
    assert.equal(readFileSync(OPENAPI_FILES.admin, 'utf8'), renderDocument(await renderAdminOpenApi()), 'docs/openapi-admin.json is stale')
    assert.equal(readFileSync(OPENAPI_FILES.public, 'utf8'), renderDocument(publicOpenApi()), 'docs/openapi-public.json is stale')
  })

  test('both are valid OpenAPI 3.1 to an independent validator', async () => {
    for (const document of [await renderAdminOpenApi(), publicOpenApi()]) {
      assert.equal((document as { openapi: string }).openapi, '3.1.0')
      const result = await validate(clone(document) as never)
      assert.ok(result.valid, result.valid ? '' : compileErrors(result))
    }
  })

  test('each served document names the address its reader reached: the public URL, or the origin a trusted proxy reports; never a development address', async (ctx) => {
    const https = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' }
    const serversOf = async (http: Partial<HttpSettings>) => {
      const service = await buildTestApp({ http })
      ctx.after(() => service.close())
      const answer = await service.app.inject({ method: 'GET', url: '/openapi.json', headers: https })
      assert.equal(answer.statusCode, 200, answer.body)
      return (answer.json() as { servers: unknown }).servers
    }
    assert.deepEqual(await serversOf({ dev: false, trustProxy: ['127.0.0.1'], publicUrl: new URL('https://auth.example.com') }), [{ url: 'https://auth.example.com' }])
    assert.deepEqual(await serversOf({ dev: false, trustProxy: ['127.0.0.1'], publicUrl: undefined }), [{ url: 'https://api.example.org' }])
    assert.equal('servers' in publicOpenApi(), false, 'the document in docs/ names no address: its reader\'s own')
    assert.equal('servers' in (await renderAdminOpenApi()), false)
  })

  test('the public document names every path the public service answers', async () => {
    const service = await buildTestApp()
    const paths = new Set<string>()
    try {
      const printed = service.app.printRoutes({ commonPrefix: false })
      // printRoutes draws a tree: each level is indented 4 characters and holds the rest of its parent's path.
      const parents: string[] = []
      for (const line of printed.split('\n')) {
        const text = line.replace(/^[\s│├└─]+/, '')
        const depth = (line.length - text.length) / 4 - 1
        const match = /^(\S+) \(([A-Z, ]+)\)/.exec(text)
        if (!match) continue
        const path = (parents[depth - 1] ?? '') + match[1]!
        parents[depth] = path
        if (!match[2]!.split(', ').every((m) => m === 'HEAD' || m === 'OPTIONS')) paths.add(path.replace(/:(\w+)/g, '{$1}'))
      }
    } finally {
      await service.close()
    }
    const documented = new Set(Object.keys((publicOpenApi() as Document).paths))
    assert.ok(paths.size >= 10, [...paths].join(' '))
    for (const path of paths) assert.ok(documented.has(path), `${path} is not in the public document`)
  })
})

describe('every admin operation answers as the admin document says', () => {
  let server: AdminTestServer
  let document: Document
  const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }))
  const covered = new Set<string>()

  before(async () => {
    server = await injectedAdminTestServer()
    const served = await server.admin('GET', '/admin/v1/openapi.json')
    assert.equal(served.status, 200)
    document = served.json as Document
    const [named] = (served.json as { servers: Array<{ url: string }> }).servers
    assert.equal(new URL(named!.url).origin, server.adminUrl, 'the admin listener\'s address as reached')
    assert.deepEqual(document, { ...clone(await renderAdminOpenApi()), servers: (document as unknown as { servers: unknown }).servers }, 'the served document is the built one, at its address')
    const publicServed = await server.transport({ method: 'GET', url: `${server.url}/openapi.json` })
    assert.equal(publicServed.status, 200)
    const publicDocument = (await publicServed.json()) as { servers: Array<{ url: string }> }
    assert.equal(new URL(publicDocument.servers[0]!.url).origin, new URL(server.url).origin, 'the public address as reached')
    assert.deepEqual(publicDocument, clone(publicOpenApi(publicDocument.servers[0]!.url)))
  })
  after(() => server.close())

  /** Calls the admin API and checks the answer against the document's schema for its path, method and status. */
  async function call(method: string, path: string, body?: unknown, options?: Parameters<AdminTestServer['admin']>[3]): Promise<AdminAnswer> {
    const answer = await server.admin(method, path, body, options)
    const bare = path.split('?')[0]!
    // A fixed path (`/admin/v1/users/import`) before a template it also matches (`/admin/v1/users/{user_id}`).
    const template = document.paths[bare] ? bare : Object.keys(document.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare))
    assert.ok(template, `${path} is not documented`)
    const operation = document.paths[template]![method.toLowerCase()]
    assert.ok(operation, `${method} ${template} is not documented`)
    const response = operation.responses[String(answer.status)]
    assert.ok(response, `${method} ${template} answered ${answer.status}, which is not documented: ${answer.text}`)
    if (answer.status === 204) {
      assert.equal(answer.text, '')
    } else {
      const type = (answer.headers.get('content-type') ?? '').split(';')[0]!
      const schema = response.content?.[type]?.schema
      assert.ok(schema, `${method} ${template} ${answer.status} has no documented ${type} body`)
      const check = ajv.compile(schema)
      assert.ok(check(answer.json), `${method} ${template} ${answer.status}: ${ajv.errorsText(check.errors)} in ${answer.text}`)
    }
    if (answer.status < 300) covered.add(operation.operationId)
    return answer
  }

  test('users, apps, tokens, authorizations and the audit trail, with their errors', async () => {
    const user = (await call('POST', '/admin/v1/users', { screen_name: 'edsger', password: 'goto considered', name: 'Edsger' })).json
    await call('POST', '/admin/v1/users', { screen_name: 'edsger', password: 'goto considered' })
    await call('POST', '/admin/v1/users', { screen_name: 'bad name' })
    await call('GET', '/admin/v1/users?limit=1')
    await call('GET', `/admin/v1/users/${user.user_id}`)
    await call('GET', '/admin/v1/users/1')
    await call('PATCH', `/admin/v1/users/${user.user_id}`, { name: 'E. W. Dijkstra' })
    await call('PATCH', `/admin/v1/users/${user.user_id}`, { email: 'ewd@example.org' })
    await call('POST', '/admin/v1/users', { screen_name: 'other', password: 'goto considered', email: 'EWD@example.org' })
    await call('POST', '/admin/v1/users/import', { users: [{ screen_name: 'knuth', password_hash: HASH_VECTORS.bcrypt2b }, 'not a person'] })
    await call('POST', '/admin/v1/users/import', { users: [] })
    await call('GET', '/admin/v1/users', undefined, { auth: null })

    const app = (await call('POST', '/admin/v1/apps', { name: 'THE', owner: user.user_id, callbacks: ['https://the.example/cb'], type: 'web', sign_in: true, access_level: 'read' })).json
    await call('POST', '/admin/v1/apps', { name: 'THE', owner: user.user_id, callbacks: [], type: 'web', sign_in: true, access_level: 'read' })
    await call('GET', `/admin/v1/apps?owner=${user.user_id}`)
    await call('GET', `/admin/v1/apps/${app.app_id}`)
    await call('PATCH', `/admin/v1/apps/${app.app_id}`, { description: 'multiprogramming' })
    await call('POST', `/admin/v1/apps/${app.app_id}/rotate-client-secret`)
    await call('PATCH', `/admin/v1/apps/${app.app_id}`, { oauth2_enabled: true })
    await call('POST', `/admin/v1/apps/${app.app_id}/rotate-client-secret`, { grace_seconds: 60 })
    await call('POST', `/admin/v1/apps/${app.app_id}/rotate-client-secret`)
    await call('GET', `/admin/v1/apps?owner=${user.screen_name}`)
    await call('POST', `/admin/v1/apps/${app.app_id}/rotate-keys`, { grace_seconds: 60 })
    await call('POST', `/admin/v1/apps/${app.app_id}/rotate-keys`, { grace_seconds: 60 * 60 * 24 * 8 })
    const rotated = await call('POST', `/admin/v1/apps/${app.app_id}/rotate-keys`)
    Object.assign(app, { consumer_key: rotated.json.consumer_key, consumer_secret: rotated.json.consumer_secret })
    await call('POST', `/admin/v1/apps/${app.app_id}/owner-token`)
    await call('GET', `/admin/v1/users/${user.user_id}/authorizations`)
    await call('DELETE', `/admin/v1/users/${user.user_id}/authorizations/${app.app_id}`)
    await call('DELETE', `/admin/v1/users/${user.user_id}/authorizations/${app.app_id}`)

    const basic = Buffer.from(`${app.consumer_key}:${app.consumer_secret}`).toString('base64')
    const bearer = await server.transport({
      url: `${server.url}/oauth2/token`,
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: 'grant_type=client_credentials',
    })
    assert.equal(bearer.status, 200, await bearer.text())
    await call('DELETE', `/admin/v1/apps/${app.app_id}/bearer-token`)
    await call('GET', `/admin/v1/audit?app_id=${app.app_id}&limit=2`)
    await call('DELETE', `/admin/v1/apps/${app.app_id}`)
    await call('GET', `/admin/v1/apps/${app.app_id}`)
  })

  test('webhook endpoints: registered, verified by the CRC challenge, listed, replayed, removed, with their errors', async () => {
    const receiver = await startWebhookReceiver()
    try {
      const created = (await call('POST', '/admin/v1/webhooks', { url: receiver.url })).json
      await call('POST', '/admin/v1/webhooks', { url: 'ftp://rs.example/hook' })
      await call('POST', `/admin/v1/webhooks/${created.id}/verify`)
      receiver.secret = created.secret
      await call('POST', `/admin/v1/webhooks/${created.id}/verify`)
      await call('GET', '/admin/v1/webhooks')
      await call('GET', `/admin/v1/webhooks/${created.id}`)
      await call('GET', '/admin/v1/webhooks/1')
      await call('POST', `/admin/v1/webhooks/${created.id}/replay`, { failed: true })
      await call('POST', `/admin/v1/webhooks/${created.id}/replay`, {})
      await call('DELETE', `/admin/v1/webhooks/${created.id}`)
      await call('DELETE', `/admin/v1/webhooks/${created.id}`)
    } finally {
      await receiver.close()
    }
  })

  test('login challenges and identities, with their errors', async () => {
    const nowMs = Date.now()
    for (const id of ['challenge-one', 'challenge-two']) {
      await server.domain.stores.externalSignIns.create({ id, kind: 'delegation', provider: 'login', browser: 'b'.repeat(32), returnTo: '/console', forceLogin: false, createdAtMs: nowMs, expiresAtMs: nowMs + 600_000 })
    }
    await call('GET', '/admin/v1/login-challenges/challenge-one')
    await call('GET', '/admin/v1/login-challenges/unknown')
    await call('PUT', '/admin/v1/login-challenges/challenge-one/accept', { subject: '', screen_name: 'ada' })
    await call('PUT', '/admin/v1/login-challenges/challenge-one/accept', { subject: 's-1', screen_name: 'ada' })
    await call('PUT', '/admin/v1/login-challenges/challenge-one/reject', {})
    await call('PUT', '/admin/v1/login-challenges/challenge-two/reject', { error_description: 'No.' })
    const { user } = await makeUser(server.domain, { screenName: 'linked' })
    await server.domain.stores.identityLinks.create({ provider: 'login', subject: 's-9', userId: user.id, createdAtMs: nowMs })
    await call('GET', `/admin/v1/users/${user.id}`)
    await call('DELETE', `/admin/v1/users/${user.id}/identities/login/s-9`)
    await call('DELETE', `/admin/v1/users/${user.id}/identities/login/s-9`)
  })

  test('every documented operation was answered with success at least once', () => {
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((o) => o.operationId))
    assert.deepEqual(operations.filter((id) => !covered.has(id)), [])
  })
})
