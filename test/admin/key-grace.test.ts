// Issue 13: rotate-keys with a grace period. During it a real client signing with the old pair and one
// signing with the new pair are both let in; after it (an injected clock moves on, no sleeping) only
// the new one is. Without a grace period, or on a second rotation, the old pair stops at once.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import oauthPkg from 'oauth'
import { startAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { runCli } from '../helpers/cli.ts'
import { testClock } from '../helpers/test-app.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'

describe('rotate-keys with a grace period', () => {
  const clock = testClock()
  let server: AdminTestServer
  let appId: string
  let original: { key: string; secret: string }
  let token: { token: string; secret: string }

  before(async () => {
    server = await startAdminTestServer({ clock })
    const owner = await server.admin('POST', '/admin/v1/users', { screen_name: 'rotator', password: 'long enough' })
    const made = await server.admin('POST', '/admin/v1/apps', { name: 'Rotating', owner: owner.json.user_id, callbacks: [], type: 'web', sign_in: false, access_level: 'read' })
    appId = made.json.app_id
    original = { key: made.json.consumer_key, secret: made.json.consumer_secret }
    const ownerToken = await server.admin('POST', `/admin/v1/apps/${appId}/owner-token`)
    token = { token: ownerToken.json.oauth_token, secret: ownerToken.json.oauth_token_secret }
  })
  after(() => server.close())

  /** An unknown consumer key with a token: 401 code 89 or 32, as for any unknown consumer key. */
  const refusedAsUnknown = (answer: { status: number; code?: number }) => {
    assert.equal(answer.status, 401)
    assert.ok(answer.code === 89 || answer.code === 32, String(answer.code))
  }

  /** verify_credentials signed by the npm oauth client with this consumer pair and the owner's token. */
  function verifyWith(pair: { key: string; secret: string }): Promise<{ status: number; code?: number }> {
    const client = new oauthPkg.OAuth('', '', pair.key, pair.secret, '1.0A', null, 'HMAC-SHA1')
    return new Promise((resolve, reject) => {
      client.get(`${server.url}/1.1/account/verify_credentials.json`, token.token, token.secret, (error, data, response) => {
        if (!response) return reject(new Error(JSON.stringify(error)))
        const code = response.statusCode === 200 ? undefined : (JSON.parse(String(data)) as { errors: Array<{ code: number }> }).errors[0]?.code
        resolve({ status: response.statusCode ?? 0, ...(code === undefined ? {} : { code }) })
      })
    })
  }

  test('old and new pairs both work until the grace period ends, then only the new one; tokens stay valid', async () => {
    const rotated = await server.admin('POST', `/admin/v1/apps/${appId}/rotate-keys`, { grace_seconds: 60 })
    assert.equal(rotated.status, 200, rotated.text)
    assert.equal(rotated.json.previous_key_expires_at, new Date(clock.nowMs() + 60_000).toISOString())
    const fresh = { key: rotated.json.consumer_key, secret: rotated.json.consumer_secret }
    assert.notEqual(fresh.key, original.key)

    assert.deepEqual(await verifyWith(original), { status: 200 })
    assert.deepEqual(await verifyWith(fresh), { status: 200 })
    clock.advance(59_000)
    assert.deepEqual(await verifyWith(original), { status: 200 }, 'one second before the end')
    clock.advance(1_000)
    refusedAsUnknown(await verifyWith(original))
    assert.deepEqual(await verifyWith(fresh), { status: 200 })

    const app = await server.admin('GET', `/admin/v1/apps/${appId}`)
    assert.equal(app.json.consumer_key, fresh.key)
    original = fresh
  })

  test('a second rotation ends the first one\'s grace at once; revoke_tokens revokes the tokens', async () => {
    const first = await server.admin('POST', `/admin/v1/apps/${appId}/rotate-keys`, { grace_seconds: 3600 })
    const middle = { key: first.json.consumer_key, secret: first.json.consumer_secret }
    assert.deepEqual(await verifyWith(original), { status: 200 })
    const second = await server.admin('POST', `/admin/v1/apps/${appId}/rotate-keys`, { revoke_tokens: false })
    assert.equal(second.json.previous_key_expires_at, null)
    refusedAsUnknown(await verifyWith(original))
    refusedAsUnknown(await verifyWith(middle))
    const latest = { key: second.json.consumer_key, secret: second.json.consumer_secret }
    assert.deepEqual(await verifyWith(latest), { status: 200 })

    const third = await server.admin('POST', `/admin/v1/apps/${appId}/rotate-keys`, { grace_seconds: 600, revoke_tokens: true })
    assert.deepEqual(await verifyWith(latest), { status: 401, code: 89 }, 'the old key is let in but its token is revoked')
    assert.deepEqual(await verifyWith({ key: third.json.consumer_key, secret: third.json.consumer_secret }), { status: 401, code: 89 })
  })

  test('grace_seconds over 7 days, or zero, is refused and changes nothing', async () => {
    const before = await server.admin('GET', `/admin/v1/apps/${appId}`)
    for (const grace of [604_801, 0, 1.5]) {
      const refused = await server.admin('POST', `/admin/v1/apps/${appId}/rotate-keys`, { grace_seconds: grace })
      assert.equal(refused.status, 400)
      assert.deepEqual(refused.json.errors.map((e: { field: string }) => e.field), ['grace_seconds'])
    }
    assert.equal((await server.admin('GET', `/admin/v1/apps/${appId}`)).json.consumer_key, before.json.consumer_key)
    // The same call with a grace period of exactly 7 days is accepted.
    await assertRefusedOnlyWhenBroken(
      (variant) => server.admin('POST', `/admin/v1/apps/${appId}/rotate-keys`, { grace_seconds: variant === 'broken' ? 604_801 : 604_800 }),
      { status: 400 },
    )
    assert.notEqual((await server.admin('GET', `/admin/v1/apps/${appId}`)).json.consumer_key, before.json.consumer_key)
  })

  test('latchkey app rotate-keys --grace keeps the old pair working (and refuses more than 7 days)', async () => {
    const current = await server.admin('GET', `/admin/v1/apps/${appId}`)
    const env = { LATCHKEY_DATABASE_URL: server.dbPath }
    const tooLong = await runCli(['app', 'rotate-keys', appId, '--grace', '604801'], env)
    assert.equal(tooLong.code, 1)
    assert.match(tooLong.stderr, /grace/)
    const rotated = await runCli(['app', 'rotate-keys', appId, '--grace', '600', '--json'], env)
    assert.equal(rotated.code, 0, rotated.stderr)
    const view = JSON.parse(rotated.stdout) as { consumer_key: string; previous_key_expires_at: string }
    assert.notEqual(view.consumer_key, current.json.consumer_key)
    assert.ok(Date.parse(view.previous_key_expires_at) > Date.now())
    const stored = await server.domain.stores.apps.findByConsumerKey(current.json.consumer_key)
    assert.equal(stored?.id, appId, 'the old key still finds the app during the grace period')
  })
})
