import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, test } from 'node:test'
import type { RevocationEventRecord } from '../../../src/storage/revocation-types.ts'
import type { Stores } from '../../../src/storage/types.ts'
import { NOW, HOUR, type ContractKit } from './fixtures.ts'

const event = (overrides: Partial<RevocationEventRecord> = {}): RevocationEventRecord => ({
  id: randomUUID(),
  type: 'app.keys_rotated',
  atMs: NOW,
  appId: '100',
  userId: null,
  credentialKind: 'consumer_key',
  credentialSha256: null,
  ...overrides,
})

/** Appends events in one unit each, as changeWithAudit does. */
async function append(s: Stores, ...events: RevocationEventRecord[]): Promise<void> {
  for (const e of events) await s.transaction((tx) => tx.revocations.append(e))
}

async function endpoint(s: Stores, id: string, appId: string | null = null): Promise<void> {
  await s.webhooks.add({ id, url: `https://rs.example/${id}`, appId, secret: `whsec_${id}_secret`, createdAtMs: NOW })
  assert.equal(await s.webhooks.markVerified(id, NOW), true)
}

/** The storage contract's part on the revocation push: outbox, endpoints, deliveries, lease (src/storage/revocation-types.ts). */
export function revocationsContract({ withStores }: ContractKit): void {
  describe('revocation push', () => {
    test('the lease is one holder\'s until it expires or is given up; its holder renews it', async () => {
      await withStores(async (s) => {
        assert.equal(await s.webhooks.claimLease('a', NOW, 10_000), true)
        assert.equal(await s.webhooks.claimLease('b', NOW + 5_000, 10_000), false)
        assert.equal(await s.webhooks.claimLease('a', NOW + 5_000, 10_000), true, 'renewed')
        assert.equal(await s.webhooks.claimLease('b', NOW + 12_000, 10_000), false, 'the renewal holds')
        assert.equal(await s.webhooks.claimLease('b', NOW + 15_001, 10_000), true, 'expired: taken over')
        await s.webhooks.releaseLease('a')
        assert.equal(await s.webhooks.claimLease('a', NOW + 15_002, 10_000), false, "a release by another holder does nothing")
        await s.webhooks.releaseLease('b')
        assert.equal(await s.webhooks.claimLease('a', NOW + 15_003, 10_000), true)
      })
    })

    test('an event is handed out once, to every endpoint it concerns, and reads back unchanged; an endpoint takes its events in outbox order', async () => {
      await withStores(async (s) => {
        await endpoint(s, '1')
        await endpoint(s, '2', '200')
        const first = event({ credentialKind: 'oauth1_access_token', type: 'access_token.invalidated', userId: '7', credentialSha256: 'ab'.repeat(32) })
        const second = event({ appId: '200' })
        // Outside a unit too (the generation-moves check sees it alone there).
        await s.revocations.append(first)
        await append(s, second)
        const fanned = await s.webhooks.fanOut(10)
        assert.deepEqual(fanned.map(({ seq: _seq, ...e }) => e), [first, second])
        assert.ok(fanned[0]!.seq < fanned[1]!.seq)
        assert.deepEqual(await s.webhooks.fanOut(10), [], 'once')
        const due = await s.webhooks.due(NOW)
        assert.deepEqual(due.map((d) => [d.endpoint.id, d.event.id, d.attempts, d.endpoint.secret]).sort(), [['1', first.id, 0, 'whsec_1_secret'], ['2', second.id, 0, 'whsec_2_secret']])
        await s.webhooks.delivered('1', fanned[0]!.seq, NOW + 1)
        assert.deepEqual((await s.webhooks.due(NOW)).map((d) => [d.endpoint.id, d.event.id]).sort(), [['1', second.id], ['2', second.id]])
        const status = await s.webhooks.list()
        assert.deepEqual(status.map((e) => [e.id, e.pending, e.failed, e.lastSuccessAtMs]), [['1', 1, 0, NOW + 1], ['2', 1, 0, null]])
      })
    })

    test('a failed attempt waits until its next attempt, blocks the later events of its endpoint, and past the retention is marked failed; replay queues it again', async () => {
      await withStores(async (s) => {
        await endpoint(s, '1')
        await append(s, event(), event())
        const [a, b] = await s.webhooks.fanOut(10)
        await s.webhooks.attemptFailed('1', a!.seq, { error: 'HTTP 500: down', nowMs: NOW, nextAttemptAtMs: NOW + 1_000, giveUp: false })
        assert.deepEqual(await s.webhooks.due(NOW + 999), [], 'waits, and nothing overtakes it')
        const [again] = await s.webhooks.due(NOW + 1_000)
        assert.deepEqual([again?.event.id, again?.attempts], [a!.id, 1])
        await s.webhooks.attemptFailed('1', a!.seq, { error: 'HTTP 502: gone', nowMs: NOW + 1_000, nextAttemptAtMs: NOW + 3_000, giveUp: true })
        assert.deepEqual((await s.webhooks.due(NOW + 1_000)).map((d) => d.event.id), [b!.id], 'failed: the next one goes')
        const [status] = await s.webhooks.list()
        assert.deepEqual([status?.pending, status?.failed, status?.lastError, status?.lastErrorAtMs], [1, 1, 'HTTP 502: gone', NOW + 1_000])
        assert.equal(await s.webhooks.replay('1', { failed: true }, NOW + 2_000), 1)
        assert.deepEqual((await s.webhooks.due(NOW + 2_000)).map((d) => [d.event.id, d.attempts]), [[a!.id, 0]], 'back in front, in outbox order')
      })
    })

    test('replay from a time queues every event since then that concerns the endpoint; prune deletes only old events no delivery needs', async () => {
      await withStores(async (s) => {
        await append(s, event({ atMs: NOW - 2 * HOUR }), event({ atMs: NOW - HOUR, appId: '300' }), event({ atMs: NOW }))
        const fanned = await s.webhooks.fanOut(10)
        await endpoint(s, '9', '100')
        assert.equal(await s.webhooks.replay('9', { sinceMs: NOW - HOUR }, NOW), 1)
        assert.deepEqual((await s.webhooks.due(NOW)).map((d) => d.event.id), [fanned[2]!.id])
        assert.equal(await s.webhooks.prune(NOW + 1), 2, 'the two events no endpoint waits for')
        assert.equal(await s.webhooks.replay('9', { sinceMs: 0 }, NOW), 1)
        assert.equal(await s.webhooks.remove('9'), true)
        assert.equal(await s.webhooks.remove('9'), false)
        assert.deepEqual(await s.webhooks.list(), [])
        assert.equal(await s.webhooks.prune(NOW + 1), 1)
      })
    })

    test('an unverified endpoint gets its events queued, none due; a rolled-back unit leaves no event', async () => {
      await withStores(async (s) => {
        await s.webhooks.add({ id: '5', url: 'https://rs.example/5', appId: null, secret: 'whsec_5', createdAtMs: NOW })
        await append(s, event())
        assert.deepEqual((await s.webhooks.list()).map((e) => e.pending), [1], 'waiting before it is handed out too')
        await assert.rejects(
          s.transaction(async (tx) => {
            await tx.revocations.append(event())
            throw new Error('the change failed')
          }),
        )
        assert.equal((await s.webhooks.fanOut(10)).length, 1)
        assert.deepEqual(await s.webhooks.due(NOW), [])
        assert.deepEqual((await s.webhooks.list()).map((e) => [e.verifiedAtMs, e.pending]), [[null, 1]])
        const found = await s.webhooks.find('5')
        assert.equal(found?.secret, 'whsec_5')
      })
    })
  })
}
