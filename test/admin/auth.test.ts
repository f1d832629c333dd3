// Issue 13: every admin request needs a live admin token; the two listeners never answer each other's paths.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { createAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { runCli } from '../helpers/cli.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'

function assertUnauthorized(answer: { status: number; headers: Headers; json: { type: string; status: number } }): void {
  assert.equal(answer.status, 401)
  assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer\b/)
  assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8')
  assert.equal(answer.json.status, 401)
  assert.equal(answer.json.type, 'urn:latchkey:problem:unauthorized')
}

describe('admin API authentication', () => {
  let server: AdminTestServer
  before(async () => {
    server = await injectedAdminTestServer()
  })
  after(() => server.close())

  // The token with its last character changed (never to itself: a fixed replacement would be the token one time in 62).
  const wrongToken = () => `${server.token.slice(0, -1)}${server.token.endsWith('x') ? 'y' : 'x'}`

  test('no token, a malformed header, a wrong token: 401 with WWW-Authenticate: Bearer', async () => {
    assertUnauthorized(await server.admin('GET', '/admin/v1/users', undefined, { auth: null }))
    assertUnauthorized(await server.admin('GET', '/admin/v1/users', undefined, { auth: `Basic ${server.token}` }))
    assertUnauthorized(await server.admin('GET', '/admin/v1/users', undefined, { auth: `Bearer ${wrongToken()}` }))
    assertUnauthorized(await server.admin('GET', '/admin/v1/openapi.json', undefined, { auth: 'Bearer lkadm_' }))
    assertUnauthorized(await server.admin('POST', '/admin/v1/users', { screen_name: 'nobody', password: 'long enough' }, { auth: null }))
    // Each of the same calls with the token itself is accepted.
    for (const auth of [null, `Basic ${server.token}`, `Bearer ${wrongToken()}`, 'Bearer lkadm_']) {
      await assertRefusedOnlyWhenBroken((variant) => server.admin('GET', '/admin/v1/users', undefined, variant === 'broken' ? { auth } : {}), { status: 401 })
    }
  })

  test("the 401 says what is wrong: no token at all, or one that is unknown or revoked", async () => {
    assert.equal((await server.admin('GET', '/admin/v1/users', undefined, { auth: null })).json.detail, 'Give an admin token: Authorization: Bearer <token>.')
    assert.equal((await server.admin('GET', '/admin/v1/users', undefined, { auth: `Bearer ${wrongToken()}` })).json.detail, 'The admin token is unknown or revoked.')
  })

  test('the header is exactly `Bearer`, one or more spaces, the token, nothing after it but spaces', async () => {
    for (const auth of [`Bearer  ${server.token}`, `bearer ${server.token}  `, `BEARER ${server.token}`]) {
      assert.equal((await server.admin('GET', '/admin/v1/users', undefined, { auth })).status, 200, auth)
    }
    for (const auth of [`XBearer ${server.token}`, `Bearer ${server.token} extra`, `Bearer${server.token}`, `Token Bearer ${server.token}`]) {
      assertUnauthorized(await server.admin('GET', '/admin/v1/users', undefined, { auth }))
    }
  })

  test('a token made and revoked with the CLI works until it is revoked, then fails at once', async () => {
    const env = { LATCHKEY_DATABASE_URL: server.dbPath }
    const created = await runCli(['admin-token', 'create', '--name', 'portal', '--json'], env)
    assert.equal(created.code, 0, created.stderr)
    const issued = JSON.parse(created.stdout) as { id: string; name: string; token: string }
    assert.deepEqual(Object.keys(issued).sort(), ['id', 'name', 'token'])
    assert.equal(issued.name, 'portal')
    const ok = await server.admin('GET', '/admin/v1/users', undefined, { auth: `Bearer ${issued.token}` })
    assert.equal(ok.status, 200)

    const listed = await runCli(['admin-token', 'list', '--json'], env)
    assert.equal(listed.code, 0, listed.stderr)
    assert.ok(!listed.stdout.includes(issued.token), 'the list never shows a token')
    assert.ok((JSON.parse(listed.stdout) as Array<{ id: string }>).some((t) => t.id === issued.id))

    const revoked = await runCli(['admin-token', 'revoke', issued.id], env)
    assert.equal(revoked.code, 0, revoked.stderr)
    assertUnauthorized(await server.admin('GET', '/admin/v1/users', undefined, { auth: `Bearer ${issued.token}` }))
    assert.equal((await server.admin('GET', '/admin/v1/users')).status, 200, 'other tokens go on working')

    const again = await runCli(['admin-token', 'revoke', issued.id], env)
    assert.equal(again.code, 1)
    assert.match(again.stderr, /no live admin token/)
  })

  test('each answer carries the token\'s rate-limit headers, counting down', async () => {
    const first = await server.admin('GET', '/admin/v1/users')
    const second = await server.admin('GET', '/admin/v1/apps')
    assert.equal(first.headers.get('x-rate-limit-limit'), second.headers.get('x-rate-limit-limit'))
    assert.ok(Number(first.headers.get('x-rate-limit-limit')) >= 1000)
    assert.equal(Number(second.headers.get('x-rate-limit-remaining')), Number(first.headers.get('x-rate-limit-remaining')) - 1)
    assert.ok(Number(second.headers.get('x-rate-limit-reset')) > Date.now() / 1000)
  })

  test('the public port answers 404 for admin paths, and the admin port 404 for the OAuth endpoints', async () => {
    const onPublic = await server.transport({ method: 'GET', url: `${server.url}/admin/v1/users`, headers: { authorization: `Bearer ${server.token}` } })
    assert.equal(onPublic.status, 404)
    const onAdmin = await server.admin('POST', '/oauth/request_token')
    assert.equal(onAdmin.status, 404)
    assert.equal(onAdmin.json.type, 'urn:latchkey:problem:not-found')
    assert.equal((await server.admin('GET', '/oauth/authorize?oauth_token=x')).status, 404)
  })
})

describe('admin API rate limit', () => {
  let server: AdminTestServer
  before(async () => {
    server = await injectedAdminTestServer()
  })
  after(() => server.close())

  test("a token that has spent its window's calls gets 429 until the window ends; another token is not held back", async () => {
    const first = await server.admin('GET', '/admin/v1/users?limit=1')
    assert.equal(first.status, 200)
    let left = Number(first.headers.get('x-rate-limit-remaining'))
    assert.ok(left > 0 && left < Number(first.headers.get('x-rate-limit-limit')))
    // The rest of the window's budget, 16 calls at a time.
    const spend = async () => {
      while (left > 0) {
        left--
        assert.equal((await server.admin('GET', '/admin/v1/users?limit=1')).status, 200)
      }
    }
    await Promise.all(Array.from({ length: 16 }, spend))
    const refused = await server.admin('GET', '/admin/v1/users?limit=1')
    assert.equal(refused.status, 429)
    assert.equal(refused.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    assert.deepEqual([(refused.json as { type: string }).type, (refused.json as { status: number }).status], ['urn:latchkey:problem:rate-limited', 429])
    assert.equal((refused.json as { detail: string }).detail, 'This admin token has made too many calls; see x-rate-limit-reset.')
    assert.equal(refused.headers.get('x-rate-limit-remaining'), '0')
    assert.ok(Number(refused.headers.get('x-rate-limit-reset')) > Date.now() / 1000)
    // Another token has a budget of its own.
    const other = await createAdminToken(server.domain, 'another portal')
    assert.equal((await server.admin('GET', '/admin/v1/users?limit=1', undefined, { auth: `Bearer ${other.token}` })).status, 200)
  })
})
