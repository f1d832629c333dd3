import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { NOW, userRecord, appRecord, accessTokenRecord, bearerTokenRecord, type ContractKit } from './fixtures.ts'

/** The storage contract's part on access and bearer tokens (src/storage/types.ts). */
export function tokensContract({ withApp }: ContractKit): void {
  describe('access tokens', () => {
    test('issueOrReuse stores the candidate when there is no live token', async () => {
      await withApp(async (s, user, app) => {
        const candidate = accessTokenRecord(app.id, user.id)
        assert.deepEqual(await s.accessTokens.issueOrReuse(candidate), candidate)
        assert.deepEqual(await s.accessTokens.findByToken(candidate.token), candidate)
        assert.deepEqual(await s.accessTokens.findLive(app.id, user.id, 'read-write'), candidate)
      })
    })

    test('issueOrReuse returns the live token instead of a new candidate', async () => {
      await withApp(async (s, user, app) => {
        const first = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
        const second = accessTokenRecord(app.id, user.id)
        assert.deepEqual(await s.accessTokens.issueOrReuse(second), first)
        assert.equal(await s.accessTokens.findByToken(second.token), undefined)
      })
    })

    test('another access level or another user gets its own token', async () => {
      await withApp(async (s, user, app) => {
        const other = userRecord()
        await s.users.create(other)
        const first = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
        const read = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id, { accessLevel: 'read' }))
        const otherUser = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, other.id))
        assert.equal(new Set([first.token, read.token, otherUser.token]).size, 3)
      })
    })

    test('20 concurrent issueOrReuse calls for one grant all get the same token', async () => {
      await withApp(async (s, user, app) => {
        const results = await Promise.all(
          Array.from({ length: 20 }, () => s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))),
        )
        assert.equal(new Set(results.map((r) => r.token)).size, 1)
        assert.equal((await s.accessTokens.findLive(app.id, user.id, 'read-write'))?.token, results[0]?.token)
      })
    })

    test('revoke ends a token once; the next issueOrReuse gives a new one', async () => {
      await withApp(async (s, user, app) => {
        const first = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
        assert.equal(await s.accessTokens.revoke(first.token, NOW + 7), true)
        assert.equal(await s.accessTokens.revoke(first.token, NOW + 8), false)
        assert.equal((await s.accessTokens.findByToken(first.token))?.revokedAtMs, NOW + 7)
        assert.equal(await s.accessTokens.findLive(app.id, user.id, 'read-write'), undefined)
        const candidate = accessTokenRecord(app.id, user.id)
        assert.deepEqual(await s.accessTokens.issueOrReuse(candidate), candidate)
      })
    })

    test('of 20 concurrent revoke calls exactly one answers true', async () => {
      await withApp(async (s, user, app) => {
        const token = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => s.accessTokens.revoke(token.token, NOW + i)))
        assert.equal(results.filter(Boolean).length, 1)
      })
    })

    test('revoke of an unknown token answers false', async () => {
      await withApp(async (s) => {
        assert.equal(await s.accessTokens.revoke('unknown', NOW), false)
      })
    })
  })

  describe('bearer tokens', () => {
    test('issueOrReuse stores the candidate when the app has no live token', async () => {
      await withApp(async (s, _user, app) => {
        const candidate = bearerTokenRecord(app.id)
        assert.deepEqual(await s.bearerTokens.issueOrReuse(candidate), candidate)
        assert.deepEqual(await s.bearerTokens.findByToken(candidate.token), candidate)
      })
    })

    test('issueOrReuse returns the live token instead of a new candidate', async () => {
      await withApp(async (s, _user, app) => {
        const first = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
        const second = bearerTokenRecord(app.id)
        assert.deepEqual(await s.bearerTokens.issueOrReuse(second), first)
        assert.equal(await s.bearerTokens.findByToken(second.token), undefined)
      })
    })

    test('each app has its own token', async () => {
      await withApp(async (s, user, app) => {
        const other = appRecord(user.id)
        await s.apps.create(other)
        const a = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
        const b = await s.bearerTokens.issueOrReuse(bearerTokenRecord(other.id))
        assert.notEqual(a.token, b.token)
      })
    })

    test('20 concurrent issueOrReuse calls for one app all get the same token', async () => {
      await withApp(async (s, _user, app) => {
        const results = await Promise.all(Array.from({ length: 20 }, () => s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))))
        assert.equal(new Set(results.map((r) => r.token)).size, 1)
      })
    })

    test('revoke ends a token once; the next issueOrReuse gives a new one', async () => {
      await withApp(async (s, _user, app) => {
        const first = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
        assert.equal(await s.bearerTokens.revoke(first.token, NOW + 3), true)
        assert.equal(await s.bearerTokens.revoke(first.token, NOW + 4), false)
        assert.equal(await s.bearerTokens.revoke('unknown', NOW), false)
        assert.equal((await s.bearerTokens.findByToken(first.token))?.revokedAtMs, NOW + 3)
        const candidate = bearerTokenRecord(app.id)
        assert.deepEqual(await s.bearerTokens.issueOrReuse(candidate), candidate)
      })
    })

  })
}
