import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, test } from 'node:test'
import type { AuditEventRecord, BearerTokenRecord, RequestTokenRecord } from '../../src/storage/records.ts'
import type { Stores } from '../../src/storage/types.ts'
import { appRecord, openWithApp, userRecord } from './contract.ts'

/**
 * Stores.transaction (src/storage/types.ts), on every adapter: a unit of work commits whole or not
 * at all, alone or among others handed over at the same moment (on SQLite those share one commit).
 */

const NOW = 1_750_000_000_000

const requestToken = (appId: string, token = `rt-${randomUUID()}`): RequestTokenRecord => ({
  token,
  secret: `rs-${randomUUID()}`,
  appId,
  callback: 'oob',
  accessLevel: 'read',
  status: 'issued',
  userId: null,
  verifierFailures: 0,
  createdAtMs: NOW,
  expiresAtMs: NOW + 3_600_000,
})

const bearerToken = (appId: string): BearerTokenRecord => ({ token: `AAAA${randomUUID()}`, appId, createdAtMs: NOW, revokedAtMs: null })

const auditEvent = (appId: string, address: string): AuditEventRecord => ({
  atMs: NOW,
  event: 'request_token.issued',
  appId,
  userId: null,
  address,
  detail: null,
})

const addressesOf = async (s: Stores, appId: string) => (await s.audit.list({ appId, limit: 1000 })).map((e) => e.address).sort()

/** Fresh, empty stores and a way to close and remove them. */
export interface FreshStores {
  stores: Stores
  close(): Promise<void>
}

export function transactionContract(adapter: string, open: (options: { settleNonceEpoch: boolean }) => Promise<FreshStores>): void {
  async function withApp(body: (s: Stores, appId: string) => Promise<void>): Promise<void> {
    const opened = await open({ settleNonceEpoch: false })
    try {
      const user = userRecord()
      const app = appRecord(user.id)
      await opened.stores.users.create(user)
      await opened.stores.apps.create(app)
      await body(opened.stores, app.id)
    } finally {
      await opened.close()
    }
  }

  describe(`${adapter} units of work (stores.transaction)`, () => {
    test('closing the stores lets every unit handed over before it finish: more units than connections, each answers', { timeout: 30_000 }, async () => {
      const opened = await open({ settleNonceEpoch: false })
      const users = Array.from({ length: 20 }, () => userRecord())
      // On PostgreSQL the pool holds 10 connections: the other units are still waiting for one.
      const units = users.map((user) => opened.stores.transaction((tx) => tx.users.create(user)))
      await opened.close()
      assert.deepEqual(await Promise.all(units), users.map(() => true))
    })

    test('every write of a unit is kept, and the unit answers what its work returned', async () => {
      await withApp(async (s, appId) => {
        const record = requestToken(appId)
        const answer = await s.transaction(async (tx) => {
          await tx.requestTokens.create(record)
          await tx.audit.record(auditEvent(appId, 'kept'))
          return 'done'
        })
        assert.equal(answer, 'done')
        assert.equal((await s.requestTokens.findByToken(record.token))?.token, record.token)
        assert.deepEqual(await addressesOf(s, appId), ['kept'])
      })
    })

    test('a unit that throws keeps none of its writes, and its error comes back unchanged', async () => {
      await withApp(async (s, appId) => {
        const record = requestToken(appId)
        const failure = new Error('the audit row could not be written')
        await assert.rejects(
          s.transaction(async (tx) => {
            await tx.requestTokens.create(record)
            await tx.audit.record(auditEvent(appId, 'dropped'))
            throw failure
          }),
          (error) => error === failure,
        )
        assert.equal(await s.requestTokens.findByToken(record.token), undefined)
        assert.deepEqual(await addressesOf(s, appId), [])
      })
    })

    test('a write refused by the database fails its unit alone; units handed over at the same moment are kept', async () => {
      await withApp(async (s, appId) => {
        const taken = requestToken(appId)
        await s.requestTokens.create(taken)
        const units = Array.from({ length: 12 }, (_, i) =>
          s.transaction(async (tx) => {
            await tx.audit.record(auditEvent(appId, `unit-${String(i).padStart(2, '0')}`))
            // Every third unit writes a token that exists: a primary-key violation, after its audit row.
            await tx.requestTokens.create(i % 3 === 1 ? requestToken(appId, taken.token) : requestToken(appId))
            return i
          }),
        )
        const outcomes = await Promise.allSettled(units)
        const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [i] : []))
        assert.deepEqual(failed, [1, 4, 7, 10])
        for (const [i, outcome] of outcomes.entries()) if (outcome.status === 'fulfilled') assert.equal(outcome.value, i)
        const kept = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [`unit-${String(i).padStart(2, '0')}`] : []))
        assert.deepEqual(await addressesOf(s, appId), kept)
      })
    })

    test('units that throw among others that do not: each keeps exactly its own writes', async () => {
      await withApp(async (s, appId) => {
        const records = Array.from({ length: 10 }, () => requestToken(appId))
        const outcomes = await Promise.allSettled(
          records.map((record, i) =>
            s.transaction(async (tx) => {
              await tx.requestTokens.create(record)
              await tx.audit.record(auditEvent(appId, record.token))
              if (i % 2 === 0) throw new Error(`unit ${i} changed its mind`)
            }),
          ),
        )
        for (const [i, record] of records.entries()) {
          assert.equal(outcomes[i]?.status, i % 2 === 0 ? 'rejected' : 'fulfilled')
          assert.equal((await s.requestTokens.findByToken(record.token)) !== undefined, i % 2 === 1, `token of unit ${i}`)
        }
        assert.deepEqual(await addressesOf(s, appId), records.filter((_, i) => i % 2 === 1).map((r) => r.token).sort())
      })
    })

    test('20 concurrent units issuing the bearer token of one app all get the same token', async () => {
      await withApp(async (s, appId) => {
        const tokens = await Promise.all(
          Array.from({ length: 20 }, () =>
            s.transaction(async (tx) => (await tx.bearerTokens.findLive(appId)) ?? (await tx.bearerTokens.issueOrReuse(bearerToken(appId)))),
          ),
        )
        assert.equal(new Set(tokens.map((t) => t.token)).size, 1)
        assert.deepEqual(await s.bearerTokens.findLive(appId), tokens[0])
      })
    })

    test('bearerTokens.findLive: none, then the issued token, then none once it is revoked', async () => {
      await withApp(async (s, appId) => {
        assert.equal(await s.bearerTokens.findLive(appId), undefined)
        const issued = await s.bearerTokens.issueOrReuse(bearerToken(appId))
        assert.deepEqual(await s.bearerTokens.findLive(appId), issued)
        assert.equal(await s.bearerTokens.revoke(issued.token, NOW + 1), true)
        assert.equal(await s.bearerTokens.findLive(appId), undefined)
      })
    })

    // A misuse that hangs would stop the suite: the timeout turns it into a failure.
    test('a unit that calls the outer stores fails at once with a clear error and keeps none of its writes', { timeout: 20_000 }, async () => {
      await withApp(async (s, appId) => {
        const record = requestToken(appId)
        await assert.rejects(
          s.transaction(async (tx) => {
            await tx.requestTokens.create(record)
            await s.audit.record(auditEvent(appId, 'outer'))
          }),
          /stores\.audit\.record was called inside a unit of work/,
        )
        await assert.rejects(s.transaction(async () => s.users.findById('1')), /stores\.users\.findById was called inside a unit of work/)
        await assert.rejects(
          s.transaction(() => s.transaction(async () => 'nested')),
          /stores\.transaction was called inside a unit of work/,
        )
        assert.equal(await s.requestTokens.findByToken(record.token), undefined)
        assert.deepEqual(await addressesOf(s, appId), [])
      })
    })

    test('inside a unit, every outer store refuses every call and names itself and the method in the error', { timeout: 20_000 }, async () => {
      await withApp(async (s) => {
        const outer = [
          'users',
          'apps',
          'requestTokens',
          'accessTokens',
          'bearerTokens',
          'audit',
          'credentials',
          'adminTokens',
          'signInUnlocks',
          'listings',
          'sessions',
          'signatureFailures',
          'oauth2Clients',
          'oauth2Codes',
          'oauth2Grants',
        ] as const
        for (const name of outer) {
          const store = s[name] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
          for (const method of Object.keys(store).filter((key) => typeof store[key] === 'function')) {
            await assert.rejects(
              s.transaction(async () => store[method]!()),
              (error: Error) => error.message.startsWith(`stores.${name}.${method} was called inside a unit of work`),
              `stores.${name}.${method}`,
            )
          }
        }
      })
    })

    // The mark is switched off when no unit runs (its cost, storage/sql/transactions.ts): each unit must switch it on again.
    test('every unit is guarded: after other units have settled, and while another unit ends first', { timeout: 20_000 }, async () => {
      await withApp(async (s, appId) => {
        const misuse = /stores\.users\.findById was called inside a unit of work/
        await s.transaction((tx) => tx.audit.record(auditEvent(appId, 'first')))
        await s.audit.record(auditEvent(appId, 'outside'))
        await assert.rejects(s.transaction(async () => s.users.findById('1')), misuse)
        await assert.rejects(s.transaction(async () => s.users.findById('1')), misuse)
        // Two units at once on PostgreSQL: the quick one ends while the slow one still runs. (On SQLite
        // a batch runs its units one after the other: each waits out the other's timeout instead.)
        const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
        let slowStarted = () => {}
        const started = new Promise<void>((resolve) => (slowStarted = resolve))
        const quickUnit = s.transaction(async (tx) => {
          await tx.audit.record(auditEvent(appId, 'quick'))
          await Promise.race([started, sleep(500)])
        })
        const slowUnit = s.transaction(async (tx) => {
          await tx.audit.record(auditEvent(appId, 'slow'))
          slowStarted()
          await Promise.race([quickUnit, sleep(500)])
          return s.users.findById('1')
        })
        const [quick, slow] = await Promise.allSettled([quickUnit, slowUnit])
        assert.equal(quick.status, 'fulfilled')
        assert.equal(slow.status, 'rejected')
        assert.match(String((slow as PromiseRejectedResult).reason), misuse)
        assert.deepEqual(await addressesOf(s, appId), ['first', 'outside', 'quick'])
      })
    })

    test("an app's key rotation joins the unit: rolled back with it, kept with it", async () => {
      await withApp(async (s, appId) => {
        const before = await s.apps.findById(appId)
        const keys = { consumerKey: `ck-${randomUUID()}`, consumerSecret: `cs-${randomUUID()}` }
        await assert.rejects(
          s.transaction(async (tx) => {
            await tx.apps.rotateKeys(appId, { keys, revokeTokens: true, nowMs: NOW })
            throw new Error('changed its mind')
          }),
          /changed its mind/,
        )
        assert.equal((await s.apps.findById(appId))?.consumerKey, before?.consumerKey)
        const rotated = await s.transaction(async (tx) => {
          const app = await tx.apps.rotateKeys(appId, { keys, revokeTokens: true, nowMs: NOW })
          await tx.audit.record(auditEvent(appId, 'rotated'))
          return app
        })
        assert.equal(rotated?.consumerKey, keys.consumerKey)
        assert.equal((await s.apps.findByConsumerKey(keys.consumerKey))?.id, appId)
        assert.deepEqual(await addressesOf(s, appId), ['rotated'])
      })
    })

    test("the admin tokens, users and apps stores join the unit: an admin token, a user update and a key rotation are rolled back with it", async () => {
      await withApp(async (s, appId) => {
        const app = await s.apps.findById(appId)
        const token = `lkadm_${randomUUID()}`
        const record = { id: `adm-${randomUUID()}`, name: 'rolled back', createdAtMs: NOW, revokedAtMs: null }
        const keys = { consumerKey: `ck-${randomUUID()}`, consumerSecret: `cs-${randomUUID()}` }
        await assert.rejects(
          s.transaction(async (tx) => {
            await tx.adminTokens.create(record, token)
            await tx.users.update(app!.ownerId, { name: 'Renamed in a unit' })
            await tx.apps.rotateKeys(appId, { keys, previousValidUntilMs: NOW + 60_000, revokeTokens: true, nowMs: NOW })
            throw new Error('the audit row could not be written')
          }),
          /the audit row could not be written/,
        )
        assert.equal(await s.adminTokens.findByToken(token), undefined)
        assert.notEqual((await s.users.findById(app!.ownerId))?.name, 'Renamed in a unit')
        assert.equal((await s.apps.findById(appId))?.consumerKey, app?.consumerKey)
        assert.equal((await s.apps.findByConsumerKey(app!.consumerKey))?.previousKeyExpiresAtMs, undefined, 'still the current key, no previous pair')

        await s.transaction(async (tx) => {
          await tx.adminTokens.create(record, token)
          await tx.apps.rotateKeys(appId, { keys, previousValidUntilMs: NOW + 60_000, revokeTokens: true, nowMs: NOW })
          await tx.audit.record(auditEvent(appId, 'kept'))
        })
        assert.equal((await s.adminTokens.findByToken(token))?.id, record.id)
        assert.equal((await s.apps.findById(appId))?.consumerKey, keys.consumerKey)
        const previous = await s.apps.findByConsumerKey(app!.consumerKey)
        assert.deepEqual({ id: previous?.id, expiresAtMs: previous?.previousKeyExpiresAtMs }, { id: appId, expiresAtMs: NOW + 60_000 })
        assert.deepEqual(await addressesOf(s, appId), ['kept'])
      })
    })

    test('the outer admin tokens store called inside a unit fails at once, and the unit keeps nothing', { timeout: 20_000 }, async () => {
      await withApp(async (s, appId) => {
        const record = requestToken(appId)
        await assert.rejects(
          s.transaction(async (tx) => {
            await tx.requestTokens.create(record)
            await s.adminTokens.revoke('1', NOW)
          }),
          /stores\.adminTokens\.revoke was called inside a unit of work/,
        )
        assert.equal(await s.requestTokens.findByToken(record.token), undefined)
      })
    })

    test('close waits for units already handed over', async () => {
      const { opened, app } = await openWithApp(open)
      const record = requestToken(app.id)
      const pending = opened.stores.transaction((tx) => tx.requestTokens.create(record))
      await opened.close()
      await pending
    })
  })
}
