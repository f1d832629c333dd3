import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { SignatureFailure } from '../../../src/storage/records.ts'
import type { Stores } from '../../../src/storage/types.ts'
import { NOW, HOUR, appRecord, auditEvent, type ContractKit } from './fixtures.ts'

/** The storage contract's part on the audit trail and the signature failures (src/storage/types.ts). */
export function auditContract({ withStores, withApp, adapter }: ContractKit): void {
  describe('audit', () => {
    test('a recorded event reads back unchanged, detail and all', async () => {
      await withStores(async (s) => {
        const event = auditEvent({
          event: 'access_token.issued',
          appId: '123',
          userId: '456',
          address: '2001:db8::1',
          detail: { access_level: 'read', reused: false, count: 3, fields: ['name', 'website'], note: 'Émile "quoted"' },
        })
        await s.audit.record(event)
        assert.deepEqual(await s.audit.list({}), [event])
      })
    })

    test('an event without app, user, address or detail reads back with nulls', async () => {
      await withStores(async (s) => {
        const event = auditEvent({ event: 'master_key.rotated', atMs: 4_102_444_800_123 })
        await s.audit.record(event)
        const [read] = await s.audit.list({})
        assert.deepEqual(read, event)
        assert.strictEqual(read?.atMs, 4_102_444_800_123, 'a number, not a string or bigint')
      })
    })

    test('deleteBefore deletes exactly the rows written before the time, and says how many', async () => {
      await withStores(async (s) => {
        for (const [atMs, address] of [[NOW - 2, 'a'], [NOW - 1, 'b'], [NOW, 'c'], [NOW + 1, 'd']] as const) {
          await s.audit.record(auditEvent({ atMs, address }))
        }
        assert.equal(await s.audit.deleteBefore(NOW), 2)
        assert.deepEqual((await s.audit.list({})).map((e) => e.address), ['d', 'c'])
        assert.equal(await s.audit.deleteBefore(NOW), 0)
      })
    })

    test("deleteBefore deletes every row before the time, past one statement's batch of 5,000", async () => {
      await withStores(async (s) => {
        await s.transaction(async (tx) => {
          for (let i = 0; i < 5_003; i++) await tx.audit.record(auditEvent({ atMs: NOW - 5_003 + i + (i >= 5_001 ? 10 : 0) }))
        })
        assert.equal(await s.audit.deleteBefore(NOW), 5_001)
        assert.equal((await s.audit.list({ limit: 10_000 })).length, 2)
      })
    })

    test('lists newest first, and events of one millisecond in reverse order of recording', async () => {
      await withStores(async (s) => {
        for (const [atMs, address] of [[NOW, 'a'], [NOW + 2, 'b'], [NOW + 1, 'c'], [NOW + 3, 'd'], [NOW + 3, 'e']] as const) {
          await s.audit.record(auditEvent({ atMs, address }))
        }
        assert.deepEqual((await s.audit.list({})).map((e) => e.address), ['e', 'd', 'b', 'c', 'a'])
      })
    })

    test('filters by app, by user and by time, alone and together', async () => {
      await withStores(async (s) => {
        await s.audit.record(auditEvent({ atMs: NOW, appId: '1', userId: '10', address: 'old-1-10' }))
        await s.audit.record(auditEvent({ atMs: NOW + HOUR, appId: '1', userId: '10', address: 'new-1-10' }))
        await s.audit.record(auditEvent({ atMs: NOW + HOUR, appId: '1', userId: null, address: 'new-1' }))
        await s.audit.record(auditEvent({ atMs: NOW + HOUR, appId: '2', userId: '10', address: 'new-2-10' }))
        await s.audit.record(auditEvent({ atMs: NOW + HOUR, appId: null, userId: '20', address: 'new-20' }))
        const addresses = async (filter: Parameters<Stores['audit']['list']>[0]) => (await s.audit.list(filter)).map((e) => e.address).sort()
        assert.deepEqual(await addresses({ appId: '1' }), ['new-1', 'new-1-10', 'old-1-10'])
        assert.deepEqual(await addresses({ userId: '10' }), ['new-1-10', 'new-2-10', 'old-1-10'])
        assert.deepEqual(await addresses({ sinceMs: NOW + 1 }), ['new-1', 'new-1-10', 'new-2-10', 'new-20'])
        assert.deepEqual(await addresses({ sinceMs: NOW + HOUR }), ['new-1', 'new-1-10', 'new-2-10', 'new-20'], 'since is inclusive')
        assert.deepEqual(await addresses({ appId: '1', userId: '10', sinceMs: NOW + 1 }), ['new-1-10'])
        assert.deepEqual(await addresses({ appId: '3' }), [])
      })
    })

    test('limit keeps the newest; without one, at most 100', async () => {
      await withStores(async (s) => {
        for (let i = 0; i < 103; i++) await s.audit.record(auditEvent({ atMs: NOW + i }))
        assert.deepEqual((await s.audit.list({ limit: 3 })).map((e) => e.atMs), [NOW + 102, NOW + 101, NOW + 100])
        const all = await s.audit.list({})
        assert.equal(all.length, 100)
        assert.equal(all.at(-1)?.atMs, NOW + 3)
      })
    })

    test('events outlive their app: deleting it leaves its history', async () => {
      await withApp(async (s, user, app) => {
        await s.audit.record(auditEvent({ appId: app.id, userId: user.id }))
        await s.audit.record(auditEvent({ appId: 'never-existed', userId: 'nobody' }))
        assert.equal(await s.apps.delete(app.id), true)
        assert.equal((await s.audit.list({ appId: app.id })).length, 1)
        assert.equal((await s.audit.list({ appId: 'never-existed' })).length, 1)
      })
    })
  })


  describe(`${adapter} signature failures`, () => {
    const bounds = { keep: 5, maxAgeMs: HOUR }
    const failure = (atMs: number, overrides: Partial<SignatureFailure> = {}): SignatureFailure => ({
      atMs,
      method: 'POST',
      url: `https://api.example/oauth/request_token?n=${atMs}`,
      reason: 'bad_signature',
      baseString: `POST&https%3A%2F%2Fapi.example&n%3D${atMs}`,
      parameters: `header: oauth_consumer_key, oauth_signature; query: n`,
      ...overrides,
    })

    test('an app keeps its newest failures, newest first, each as written; other apps are apart', async () => {
      await withApp(async (s, user, app) => {
        const other = appRecord(user.id)
        await s.apps.create(other)
        for (let i = 0; i < 8; i++) await s.signatureFailures.record(app.id, failure(NOW + i), bounds)
        await s.signatureFailures.record(other.id, failure(NOW, { reason: 'nonce_reused', baseString: undefined, parameters: undefined }), bounds)
        const recent = await s.signatureFailures.recent(app.id, NOW + 10, bounds)
        assert.deepEqual(recent.map((f) => f.atMs), [NOW + 7, NOW + 6, NOW + 5, NOW + 4, NOW + 3])
        assert.deepEqual(recent[0], failure(NOW + 7))
        assert.deepEqual(await s.signatureFailures.recent(other.id, NOW + 10, bounds), [{ atMs: NOW, method: 'POST', url: `https://api.example/oauth/request_token?n=${NOW}`, reason: 'nonce_reused' }])
      })
    })

    test('the store holds no more than the bound per app (older rows are deleted, not only hidden)', async () => {
      await withApp(async (s, _user, app) => {
        for (let i = 0; i < 12; i++) await s.signatureFailures.record(app.id, failure(NOW + i), bounds)
        const wide = { keep: 1000, maxAgeMs: 10 * HOUR }
        assert.equal((await s.signatureFailures.recent(app.id, NOW + 20, wide)).length, bounds.keep)
      })
    })

    test('writes at the same moment hold the bound exactly: no more rows than it, whatever the backend', async () => {
      await withApp(async (s, _user, app) => {
        await Promise.all(Array.from({ length: 20 }, (_, i) => s.signatureFailures.record(app.id, failure(NOW + i), bounds)))
        const wide = { keep: 1000, maxAgeMs: 10 * HOUR }
        assert.equal((await s.signatureFailures.recent(app.id, NOW + 30, wide)).length, bounds.keep)
      })
    })

    test('a failure older than the bound is not shown, and is deleted by the next write', async () => {
      await withApp(async (s, _user, app) => {
        await s.signatureFailures.record(app.id, failure(NOW), bounds)
        assert.equal((await s.signatureFailures.recent(app.id, NOW + HOUR - 1, bounds)).length, 1)
        assert.equal((await s.signatureFailures.recent(app.id, NOW + HOUR, bounds)).length, 0)
        await s.signatureFailures.record(app.id, failure(NOW + HOUR + 1), bounds)
        const wide = { keep: 1000, maxAgeMs: 10 * HOUR }
        assert.deepEqual((await s.signatureFailures.recent(app.id, NOW + HOUR + 2, wide)).map((f) => f.atMs), [NOW + HOUR + 1])
      })
    })

    test("deleting an app deletes its failures", async () => {
      await withApp(async (s, user, app) => {
        await s.signatureFailures.record(app.id, failure(NOW), bounds)
        assert.equal(await s.apps.delete(app.id), true)
        const again = appRecord(user.id, { id: app.id })
        assert.equal(await s.apps.create(again), true)
        assert.deepEqual(await s.signatureFailures.recent(app.id, NOW + 1, bounds), [])
      })
    })
  })
}
