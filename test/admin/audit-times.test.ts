// The audit trail's `since` and `until` (src/admin/routes/audit.ts): RFC 3339 times, a leap second
// as the second after :59, in any offset the schema takes; and cursors only as the list writes them.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'

describe('audit trail times', () => {
  let server: AdminTestServer
  let nowMs = Date.UTC(2026, 5, 30, 23, 59, 59, 500)
  const ids: Record<string, string> = {}
  before(async () => {
    server = await injectedAdminTestServer({ clock: { nowMs: () => nowMs } })
    // One person made half a second before the leap second's end, one half a second after it.
    ids.before = (await server.admin('POST', '/admin/v1/users', { screen_name: 'before_leap', password: 'long enough' })).json.user_id
    nowMs = Date.UTC(2026, 6, 1, 0, 0, 0, 500)
    ids.after = (await server.admin('POST', '/admin/v1/users', { screen_name: 'after_leap', password: 'long enough' })).json.user_id
  })
  after(() => server.close())

  /** Which of the two people's creations the trail lists with this query. */
  async function listed(query: string): Promise<string[]> {
    const answer = await server.admin('GET', `/admin/v1/audit?event=user.created&${query}`)
    assert.equal(answer.status, 200, `${query}: ${answer.text}`)
    const users = new Set(answer.json.data.map((e: { user_id: string }) => e.user_id))
    return Object.keys(ids).filter((name) => users.has(ids[name]))
  }

  test('a leap second is the start of the next second, whatever its offset is written as', async () => {
    for (const leap of ['2026-06-30T23:59:60Z', '2026-06-30t23:59:60z', '2026-06-30T23:59:60+00:00', '2026-06-30T23:59:60+0000', '2026-07-01T01:59:60+02:00', '2026-07-01T01:59:60+0200']) {
      assert.deepEqual(await listed(`since=${encodeURIComponent(leap)}`), ['after'], `since ${leap}`)
      assert.deepEqual(await listed(`until=${encodeURIComponent(leap)}`), ['before'], `until ${leap}`)
    }
    // With a fraction: half a second into the leap second is half a second into the next.
    assert.deepEqual(await listed(`since=${encodeURIComponent('2026-06-30T23:59:60.5Z')}`), ['after'])
    assert.deepEqual(await listed(`until=${encodeURIComponent('2026-06-30T23:59:60.501Z')}`), ['before', 'after'])
    // The same instants written without a leap second.
    assert.deepEqual(await listed(`since=${encodeURIComponent('2026-07-01T00:00:00Z')}`), ['after'])
    assert.deepEqual(await listed(`until=${encodeURIComponent('2026-07-01T00:00:00.501Z')}`), ['before', 'after'])
  })

  test('a cursor is only one of this list: the time and the id, digits only', async () => {
    const first = await server.admin('GET', '/admin/v1/audit?limit=1')
    assert.equal(first.status, 200)
    assert.equal((await server.admin('GET', `/admin/v1/audit?limit=1&cursor=${first.json.next_cursor}`)).status, 200)
    for (const key of ['x1.2', '1.2x', '1', '1.2.3']) {
      const refused = await server.admin('GET', `/admin/v1/audit?cursor=${Buffer.from(key).toString('base64url')}`)
      assert.equal(refused.status, 400, `${key}: ${refused.text}`)
    }
  })
})
