// Issue 49, item 3: the revocation push's endpoints over the admin API: registered with a secret
// shown once, checked with X's CRC challenge, watched (pending, failed, last error), replayed, removed.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startRevocationDelivery, type RevocationDelivery } from '../../src/domain/revocations/delivery.ts'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { eventually } from '../helpers/eventually.ts'
import { hmacOf, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts'

describe('webhook endpoints over the admin API', { timeout: 60_000 }, () => {
  let server: AdminTestServer
  let receiver: WebhookReceiver
  let delivery: RevocationDelivery
  let appId: string
  before(async () => {
    server = await injectedAdminTestServer()
    receiver = await startWebhookReceiver()
    delivery = startRevocationDelivery(server.domain, { holder: 'admin-test', onError: () => {} })
    const owner = (await server.admin('POST', '/admin/v1/users', { screen_name: 'hook_owner', password: 'correct horse', name: 'Owner' })).json.user_id as string
    appId = (await server.admin('POST', '/admin/v1/apps', { name: 'Hooked', owner, callbacks: ['https://client.example/cb'], type: 'web', sign_in: false, access_level: 'read' })).json.app_id as string
  })
  after(async () => {
    await delivery.stop()
    await receiver.close()
    await server.close()
  })

  test('registered, refused by a wrong CRC answer, verified by the right one; an end is delivered signed; the list shows the queue; a removed endpoint is gone', async () => {
    const created = await server.admin('POST', '/admin/v1/webhooks', { url: receiver.url, app_id: appId })
    assert.equal(created.status, 201, created.text)
    const { id, secret } = created.json as { id: string; secret: string }
    assert.match(secret, /^whsec_[A-Za-z0-9]{40}$/)
    assert.deepEqual([created.json.url, created.json.app_id, created.json.verified], [receiver.url, appId, false])
    receiver.secret = secret
    receiver.crc = 'wrong'
    const refused = await server.admin('POST', `/admin/v1/webhooks/${id}/verify`)
    assert.equal(refused.status, 400, refused.text)
    assert.match(refused.text, /failed the CRC challenge: its response_token is not/)
    receiver.crc = 'right'
    const verified = await server.admin('POST', `/admin/v1/webhooks/${id}/verify`)
    assert.equal(verified.status, 200, verified.text)
    assert.equal(verified.json.verified, true)
    assert.ok(!('secret' in verified.json), 'the secret is shown once, at registration')

    receiver.status = 503
    assert.equal((await server.admin('PATCH', `/admin/v1/apps/${appId}`, { suspended: true })).status, 200)
    await eventually(async () => {
      const [listed] = (await server.admin('GET', '/admin/v1/webhooks')).json.data as Array<Record<string, unknown>>
      assert.deepEqual([listed?.id, listed?.pending, listed?.failed, listed?.last_error], [id, 1, 0, 'HTTP 503: down for now'])
    })
    receiver.status = 200
    const [taken] = await eventually(async () => {
      assert.equal(receiver.taken().length, 1)
      return receiver.taken()
    })
    assert.equal(taken!.event.type, 'app.suspended')
    assert.equal(taken!.headers['x-latchkey-signature'], hmacOf(secret, taken!.body))
    // The receiver has the event before the delivery loop has recorded its answer.
    await eventually(async () => {
      const one = await server.admin('GET', `/admin/v1/webhooks/${id}`)
      assert.deepEqual([one.json.pending, one.json.failed, typeof one.json.last_success_at], [0, 0, 'string'])
    })

    const replayed = await server.admin('POST', `/admin/v1/webhooks/${id}/replay`, { since: new Date(Date.now() - 60_000).toISOString() })
    assert.deepEqual([replayed.status, replayed.json], [200, { queued: 1 }])
    await eventually(async () => assert.equal(receiver.taken().length, 2))
    assert.equal(receiver.taken()[1]!.event.id, taken!.event.id, 'replayed with the same id')

    const audited = (await server.admin('GET', `/admin/v1/audit?app_id=${appId}&limit=20`)).json.data as Array<{ event: string; detail: Record<string, unknown> }>
    const origin = new URL(receiver.url).origin
    assert.deepEqual(
      audited.filter((row) => row.event.startsWith('webhook.')).map((row) => [row.event, row.detail.webhook_id, row.detail.url, typeof row.detail.actor]),
      [['webhook.replayed', id, origin, 'string'], ['webhook.verified', id, origin, 'string'], ['webhook.added', id, origin, 'string']],
      'every change is audited with its admin token as actor, the URL by its origin only',
    )
    assert.ok(!JSON.stringify(audited).includes(secret))
    const both = await server.admin('POST', `/admin/v1/webhooks/${id}/replay`, { failed: true, since: new Date().toISOString() })
    assert.equal(both.status, 400)
    assert.equal((await server.admin('DELETE', `/admin/v1/webhooks/${id}`)).status, 204)
    assert.equal((await server.admin('GET', `/admin/v1/webhooks/${id}`)).status, 404)
    assert.deepEqual((await server.admin('GET', '/admin/v1/webhooks')).json, { data: [] })
  })

  test('a URL that is not http(s), an unknown app, a bad id: 400 or 404 with the reason, never a 5xx', async () => {
    const ftp = await server.admin('POST', '/admin/v1/webhooks', { url: 'ftp://rs.example/hook' })
    assert.equal(ftp.status, 400)
    assert.match(ftp.text, /http or https URL/)
    assert.equal((await server.admin('POST', '/admin/v1/webhooks', { url: 'https://rs.example/hook', app_id: '999999' })).status, 404)
    assert.equal((await server.admin('POST', '/admin/v1/webhooks', { url: 'https://rs.example/hook', extra: 1 })).status, 400)
    assert.equal((await server.admin('POST', '/admin/v1/webhooks/12345/verify')).status, 404)
    assert.equal((await server.admin('DELETE', '/admin/v1/webhooks/abc')).status, 400)
    assert.equal((await server.admin('POST', '/admin/v1/webhooks/12345/replay', {})).status, 400)
  })
})
