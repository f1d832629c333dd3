import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { NOW, HOUR, requestTokenRecord, type ContractKit } from './fixtures.ts'

/** The storage contract's part on request tokens (src/storage/types.ts). */
export function requestTokensContract({ withApp, authorizedToken, redeem }: ContractKit): void {
  describe('request tokens', () => {
    test('a created token is found unchanged', async () => {
      await withApp(async (s, _user, app) => {
        const record = requestTokenRecord(app.id, { callback: 'oob', accessLevel: 'read' })
        await s.requestTokens.create(record)
        assert.deepEqual(await s.requestTokens.findByToken(record.token), record)
        assert.equal(await s.requestTokens.findByToken('unknown'), undefined)
      })
    })

    test('authorize turns an issued token authorized for the user, with the verifier', async () => {
      await withApp(async (s, user, app) => {
        const record = requestTokenRecord(app.id)
        await s.requestTokens.create(record)
        assert.equal(await s.requestTokens.authorize(record.token, user.id, 'the-verifier', NOW), true)
        const found = await s.requestTokens.findByToken(record.token)
        assert.deepEqual(found, { ...record, status: 'authorized', userId: user.id })
        assert.equal((await redeem(s, record.token, 'the-verifier', NOW))?.token, record.token)
      })
    })

    test('authorize works only once', async () => {
      await withApp(async (s, user, app) => {
        const record = await authorizedToken(s, app, user)
        assert.equal(await s.requestTokens.authorize(record.token, user.id, 'another', NOW), false)
        assert.equal(await redeem(s, record.token, 'another', NOW), undefined, 'the first verifier still rules')
        assert.equal((await redeem(s, record.token, 'verifier-1', NOW))?.token, record.token)
      })
    })

    test('authorize refuses an expired token', async () => {
      await withApp(async (s, user, app) => {
        const record = requestTokenRecord(app.id, { expiresAtMs: NOW - 1 })
        await s.requestTokens.create(record)
        assert.equal(await s.requestTokens.authorize(record.token, user.id, 'v', NOW), false)
        assert.equal((await s.requestTokens.findByToken(record.token))?.status, 'issued')
      })
    })

    test('authorize refuses an unknown token', async () => {
      await withApp(async (s, user) => {
        assert.equal(await s.requestTokens.authorize('unknown', user.id, 'v', NOW), false)
      })
    })

    test('deny turns an issued token denied; it can then be neither authorized nor exchanged', async () => {
      await withApp(async (s, user, app) => {
        const record = requestTokenRecord(app.id)
        await s.requestTokens.create(record)
        assert.equal(await s.requestTokens.deny(record.token, NOW), true)
        assert.equal((await s.requestTokens.findByToken(record.token))?.status, 'denied')
        assert.equal(await s.requestTokens.authorize(record.token, user.id, 'v', NOW), false)
        assert.equal(await redeem(s, record.token, 'verifier-1', NOW), undefined)
        assert.equal(await s.requestTokens.deny(record.token, NOW), false)
      })
    })

    test('deny refuses an authorized, expired or unknown token', async () => {
      await withApp(async (s, user, app) => {
        const authorized = await authorizedToken(s, app, user)
        assert.equal(await s.requestTokens.deny(authorized.token, NOW), false)
        const expired = requestTokenRecord(app.id, { expiresAtMs: NOW - 1 })
        await s.requestTokens.create(expired)
        assert.equal(await s.requestTokens.deny(expired.token, NOW), false)
        assert.equal(await s.requestTokens.deny('unknown', NOW), false)
      })
    })

    test('redeemVerifier gives an authorized token once, then never again', async () => {
      await withApp(async (s, user, app) => {
        const record = await authorizedToken(s, app, user)
        const consumed = await redeem(s, record.token, 'verifier-1', NOW)
        assert.equal(consumed?.token, record.token)
        assert.equal(consumed?.secret, record.secret)
        assert.equal(consumed?.userId, user.id)
        assert.equal(consumed?.callback, record.callback)
        assert.equal(await redeem(s, record.token, 'verifier-1', NOW), undefined)
        assert.equal((await s.requestTokens.findByToken(record.token))?.status, 'used')
      })
    })

    test('a wrong verifier redeems nothing and counts one failure; the right one still works below the maximum', async () => {
      await withApp(async (s, user, app) => {
        const record = await authorizedToken(s, app, user)
        assert.deepEqual(await s.requestTokens.redeemVerifier(record.token, 'verifier-2', 3, NOW), { outcome: 'wrong-verifier', failures: 1 })
        assert.deepEqual(await s.requestTokens.redeemVerifier(record.token, '', 3, NOW), { outcome: 'wrong-verifier', failures: 2 })
        const found = await s.requestTokens.findByToken(record.token)
        assert.deepEqual([found?.status, found?.verifierFailures], ['authorized', 2])
        assert.equal((await redeem(s, record.token, 'verifier-1', NOW))?.token, record.token)
      })
    })

    test('the wrong verifier that reaches the maximum kills the token: the right one then finds it not redeemable', async () => {
      await withApp(async (s, user, app) => {
        const record = await authorizedToken(s, app, user)
        for (let i = 1; i <= 3; i++) {
          assert.deepEqual(await s.requestTokens.redeemVerifier(record.token, `wrong-${i}`, 3, NOW), { outcome: 'wrong-verifier', failures: i })
        }
        assert.equal((await s.requestTokens.findByToken(record.token))?.status, 'dead')
        assert.deepEqual(await s.requestTokens.redeemVerifier(record.token, 'verifier-1', 3, NOW), { outcome: 'not-redeemable' })
        assert.deepEqual(await s.requestTokens.redeemVerifier(record.token, 'wrong-4', 3, NOW), { outcome: 'not-redeemable' }, 'a dead token counts nothing more')
        assert.equal((await s.requestTokens.findByToken(record.token))?.verifierFailures, 3)
      })
    })

    test('an issued token has no verifier yet: every attempt on it is a counted failure', async () => {
      await withApp(async (s, _user, app) => {
        const issued = requestTokenRecord(app.id)
        await s.requestTokens.create(issued)
        assert.deepEqual(await s.requestTokens.redeemVerifier(issued.token, 'verifier-1', 3, NOW), { outcome: 'wrong-verifier', failures: 1 })
        assert.equal((await s.requestTokens.findByToken(issued.token))?.status, 'issued')
      })
    })

    test('of 100 concurrent wrong verifiers and the right one, at most 3 are counted; the right one wins only before the third', async () => {
      await withApp(async (s, user, app) => {
        const record = await authorizedToken(s, app, user)
        const attempts = Array.from({ length: 101 }, (_, i) => (i === 50 ? 'verifier-1' : `wrong-${i}`))
        const results = await Promise.all(attempts.map((v) => s.requestTokens.redeemVerifier(record.token, v, 3, NOW).then((a) => ({ v, a }))))
        const counted = results.filter((r) => r.a.outcome === 'wrong-verifier')
        assert.ok(counted.length <= 3, `${counted.length} failures counted`)
        assert.deepEqual(counted.map((r) => (r.a as { failures: number }).failures).sort(), [1, 2, 3].slice(0, counted.length))
        const right = results.find((r) => r.v === 'verifier-1')!.a
        const found = await s.requestTokens.findByToken(record.token)
        if (right.outcome === 'redeemed') {
          assert.equal(found?.status, 'used')
          assert.ok(counted.length < 3, 'redeemed only while fewer than 3 failures were counted')
        } else {
          assert.deepEqual([right.outcome, counted.length, found?.status], ['not-redeemable', 3, 'dead'])
        }
      })
    })

    test('of 20 concurrent authorize or deny calls exactly one wins, and the token is in that state', async () => {
      await withApp(async (s, user, app) => {
        const record = requestTokenRecord(app.id)
        await s.requestTokens.create(record)
        const calls = Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0 ? s.requestTokens.authorize(record.token, user.id, `v${i}`, NOW).then((ok) => (ok ? `authorized v${i}` : '')) : s.requestTokens.deny(record.token, NOW).then((ok) => (ok ? 'denied' : '')),
        )
        const winners = (await Promise.all(calls)).filter(Boolean)
        assert.equal(winners.length, 1)
        const status = (await s.requestTokens.findByToken(record.token))?.status
        assert.equal(status, winners[0]!.split(' ')[0])
        if (status === 'authorized') assert.equal((await redeem(s, record.token, winners[0]!.split(' ')[1]!, NOW))?.token, record.token)
      })
    })

    test('of 20 concurrent redeemVerifier calls with the right verifier exactly one gets the token', async () => {
      await withApp(async (s, user, app) => {
        const record = await authorizedToken(s, app, user)
        const results = await Promise.all(Array.from({ length: 20 }, () => redeem(s, record.token, 'verifier-1', NOW)))
        assert.equal(results.filter((r) => r !== undefined).length, 1)
      })
    })

    test('redeemVerifier refuses an expired or unknown token, and an issued one with any verifier', async () => {
      await withApp(async (s, user, app) => {
        const issued = requestTokenRecord(app.id)
        await s.requestTokens.create(issued)
        assert.equal(await redeem(s, issued.token, 'verifier-1', NOW), undefined)
        const authorized = await authorizedToken(s, app, user)
        assert.equal(await redeem(s, authorized.token, 'verifier-1', authorized.expiresAtMs + 1), undefined)
        assert.equal(await redeem(s, 'unknown', 'verifier-1', NOW), undefined)
      })
    })

    test('deleteExpired removes expired tokens only and says how many', async () => {
      await withApp(async (s, _user, app) => {
        const expired = [requestTokenRecord(app.id, { expiresAtMs: NOW - HOUR }), requestTokenRecord(app.id, { expiresAtMs: NOW - 1 })]
        const live = requestTokenRecord(app.id, { expiresAtMs: NOW + HOUR })
        for (const record of [...expired, live]) await s.requestTokens.create(record)
        assert.equal(await s.requestTokens.deleteExpired(NOW), 2)
        for (const record of expired) assert.equal(await s.requestTokens.findByToken(record.token), undefined)
        assert.deepEqual(await s.requestTokens.findByToken(live.token), live)
        assert.equal(await s.requestTokens.deleteExpired(NOW), 0)
      })
    })
  })
}
