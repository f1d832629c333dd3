import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { AppRecord, AuthorizationCodeRecord, OAuth2ClientRecord, OAuth2GrantRecord, UserRecord } from '../../src/storage/records.ts'
import type { NewOAuth2Token, Stores } from '../../src/storage/types.ts'
import { appRecord, userRecord, type OpenFreshStores } from './contract.ts'

/** The OAuth 2.0 stores' part of the storage contract (src/storage/oauth2-types.ts), run by each adapter's test file. */

const NOW = 1_750_000_000_000
let counter = 0
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`

function clientRecord(appId: string, overrides: Partial<OAuth2ClientRecord> = {}): OAuth2ClientRecord {
  return { appId, clientId: unique('client'), type: 'confidential', clientSecret: unique('secret'), previousClientSecret: null, previousSecretExpiresAtMs: null, createdAtMs: NOW, updatedAtMs: NOW, ...overrides }
}

function codeRecord(app: AppRecord, user: UserRecord, overrides: Partial<AuthorizationCodeRecord> = {}): AuthorizationCodeRecord {
  return {
    appId: app.id,
    userId: user.id,
    redirectUri: 'https://app.example/cb',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    challengeMethod: 'S256',
    scopes: ['tweet.read', 'users.read', 'offline.access'],
    createdAtMs: NOW,
    expiresAtMs: NOW + 30_000,
    ...overrides,
  }
}

function grantRecord(app: AppRecord, user: UserRecord, overrides: Partial<OAuth2GrantRecord> = {}): OAuth2GrantRecord {
  return { id: unique('grant'), appId: app.id, userId: user.id, scopes: ['tweet.read', 'users.read'], createdAtMs: NOW, revokedAtMs: null, ...overrides }
}

const accessToken = (grantId: string, atMs = NOW): NewOAuth2Token => ({
  token: unique('access'),
  record: { kind: 'access', grantId, createdAtMs: atMs, expiresAtMs: atMs + 7_200_000, spentAtMs: null },
})
const refreshToken = (grantId: string, atMs = NOW): NewOAuth2Token => ({
  token: unique('refresh'),
  record: { kind: 'refresh', grantId, createdAtMs: atMs, expiresAtMs: atMs + 180 * 86_400_000, spentAtMs: null },
})

export function oauth2Contract(adapter: string, open: OpenFreshStores): void {
  async function withApp(body: (s: Stores, user: UserRecord, app: AppRecord) => Promise<void>): Promise<void> {
    const opened = await open({ settleNonceEpoch: false })
    try {
      const user = userRecord()
      const app = appRecord(user.id)
      assert.equal(await opened.stores.users.create(user), true)
      assert.equal(await opened.stores.apps.create(app), true)
      await body(opened.stores, user, app)
    } finally {
      await opened.close()
    }
  }

  /** A redeemed code and the grant it made, with an access and a refresh token. */
  async function grantWithTokens(s: Stores, app: AppRecord, user: UserRecord) {
    const code = unique('code')
    await s.oauth2Codes.create(code, codeRecord(app, user))
    assert.equal((await s.oauth2Codes.redeem(code, NOW + 1)).outcome, 'redeemed')
    const grant = grantRecord(app, user)
    const access = accessToken(grant.id)
    const refresh = refreshToken(grant.id)
    await s.oauth2Grants.create(grant, [access, refresh], code)
    return { code, grant, access, refresh }
  }

  describe(`${adapter} OAuth 2.0 store`, () => {
    test('a client is found by its app and by its client id, its secret as saved; saving again replaces it; deleting removes it', async () => {
      await withApp(async (s, _user, app) => {
        const client = clientRecord(app.id)
        await s.oauth2Clients.save(client)
        assert.deepEqual(await s.oauth2Clients.findByAppId(app.id), client)
        assert.deepEqual(await s.oauth2Clients.findByClientId(client.clientId), client)
        const regenerated = { ...client, clientSecret: unique('secret'), previousClientSecret: client.clientSecret, previousSecretExpiresAtMs: NOW + 60_000, updatedAtMs: NOW + 3 }
        await s.oauth2Clients.save(regenerated)
        assert.deepEqual(await s.oauth2Clients.findByClientId(client.clientId), regenerated, 'the previous secret and its end are kept')
        const publicClient = { ...client, type: 'public' as const, clientSecret: null, previousClientSecret: null, previousSecretExpiresAtMs: null, updatedAtMs: NOW + 5 }
        await s.oauth2Clients.save(publicClient)
        assert.deepEqual(await s.oauth2Clients.findByAppId(app.id), publicClient)
        assert.deepEqual(await s.oauth2Clients.findByAppIds([app.id, 'no-such-app']), [publicClient], 'the clients of a page of apps, those that have one')
        assert.deepEqual(await s.oauth2Clients.findByAppIds([]), [])
        assert.equal(await s.oauth2Clients.delete(app.id), true)
        assert.equal(await s.oauth2Clients.delete(app.id), false)
        assert.equal(await s.oauth2Clients.findByClientId(client.clientId), undefined)
      })
    })

    test('a code is redeemed once: its record the first time, reused (with the grant it made and its record) after, unknown for another', async () => {
      await withApp(async (s, user, app) => {
        const code = unique('code')
        const record = codeRecord(app, user)
        await s.oauth2Codes.create(code, record)
        assert.deepEqual(await s.oauth2Codes.redeem(code, NOW + 1), { outcome: 'redeemed', record })
        assert.deepEqual(await s.oauth2Codes.redeem(code, NOW + 2), { outcome: 'reused', grantId: null, record })
        const grant = grantRecord(app, user)
        await s.oauth2Grants.create(grant, [accessToken(grant.id)], code)
        assert.deepEqual(await s.oauth2Codes.redeem(code, NOW + 3), { outcome: 'reused', grantId: grant.id, record })
        assert.deepEqual(await s.oauth2Codes.redeem(`${code}x`, NOW + 3), { outcome: 'unknown' })
      })
    })

    test('a grant made without a code (a seed file\'s) is found by its tokens, and names no code', async () => {
      await withApp(async (s, user, app) => {
        const code = unique('code')
        const record = codeRecord(app, user)
        await s.oauth2Codes.create(code, record)
        assert.equal((await s.oauth2Codes.redeem(code, NOW + 1)).outcome, 'redeemed')
        const grant = grantRecord(app, user)
        const access = accessToken(grant.id)
        await s.oauth2Grants.create(grant, [access], undefined)
        assert.deepEqual(await s.oauth2Grants.findToken(access.token), { token: access.record, grant })
        assert.deepEqual(await s.oauth2Codes.redeem(code, NOW + 2), { outcome: 'reused', grantId: null, record }, 'no code names the grant')
      })
    })

    test('of 50 redemptions of one code at once, exactly one gets its record', async () => {
      await withApp(async (s, user, app) => {
        const code = unique('code')
        await s.oauth2Codes.create(code, codeRecord(app, user))
        const outcomes = await Promise.all(Array.from({ length: 50 }, () => s.oauth2Codes.redeem(code, NOW + 1)))
        assert.equal(outcomes.filter((o) => o.outcome === 'redeemed').length, 1)
        assert.equal(outcomes.filter((o) => o.outcome === 'reused').length, 49)
      })
    })

    test('tokens are found with their grant; an unknown token is not', async () => {
      await withApp(async (s, user, app) => {
        const { grant, access, refresh } = await grantWithTokens(s, app, user)
        assert.deepEqual(await s.oauth2Grants.findToken(access.token), { token: access.record, grant })
        assert.deepEqual(await s.oauth2Grants.findToken(refresh.token), { token: refresh.record, grant })
        assert.equal(await s.oauth2Grants.findToken(`${access.token}x`), undefined)
      })
    })

    test('rotate spends the refresh token and its access token and stores the successors; a second rotate of it is refused and writes nothing', async () => {
      await withApp(async (s, user, app) => {
        const { grant, access, refresh } = await grantWithTokens(s, app, user)
        const next = [accessToken(grant.id, NOW + 10), refreshToken(grant.id, NOW + 10)]
        assert.equal(await s.oauth2Grants.rotate(refresh.token, next, NOW + 10), true)
        assert.equal((await s.oauth2Grants.findToken(refresh.token))?.token.spentAtMs, NOW + 10)
        assert.equal((await s.oauth2Grants.findToken(access.token))?.token.spentAtMs, NOW + 10, 'the access token it replaces ends')
        for (const successor of next) assert.deepEqual((await s.oauth2Grants.findToken(successor.token))?.token, successor.record)
        const again = [accessToken(grant.id, NOW + 20)]
        assert.equal(await s.oauth2Grants.rotate(refresh.token, again, NOW + 20), false)
        assert.equal(await s.oauth2Grants.findToken(again[0]!.token), undefined)
        assert.equal(await s.oauth2Grants.rotate(access.token, [accessToken(grant.id)], NOW + 20), false, 'an access token is not a refresh token')
      })
    })

    test('of 50 rotations of one refresh token at once, exactly one succeeds', async () => {
      await withApp(async (s, user, app) => {
        const { grant, refresh } = await grantWithTokens(s, app, user)
        const results = await Promise.all(Array.from({ length: 50 }, () => s.oauth2Grants.rotate(refresh.token, [accessToken(grant.id), refreshToken(grant.id)], NOW + 5)))
        assert.equal(results.filter(Boolean).length, 1)
      })
    })

    test('revoking a grant ends it once; revokeGrants ends those of an app or a person; listGrants shows the live ones, newest first', async () => {
      await withApp(async (s, user, app) => {
        const first = await grantWithTokens(s, app, user)
        const second = grantRecord(app, user, { createdAtMs: NOW + 1 })
        await s.oauth2Grants.create(second, [accessToken(second.id)], unique('code-never-stored'))
        assert.deepEqual((await s.oauth2Grants.listLive(user.id)).map((g) => g.id), [second.id, first.grant.id])
        assert.equal(await s.oauth2Grants.revoke(first.grant.id, NOW + 2), true)
        assert.equal(await s.oauth2Grants.revoke(first.grant.id, NOW + 3), false)
        assert.equal((await s.oauth2Grants.findToken(first.access.token))?.grant.revokedAtMs, NOW + 2)
        assert.deepEqual((await s.oauth2Grants.listLive(user.id)).map((g) => g.id), [second.id])
        const other = userRecord()
        await s.users.create(other)
        const theirs = grantRecord(app, other)
        await s.oauth2Grants.create(theirs, [accessToken(theirs.id)], unique('code-never-stored'))
        const otherApp = appRecord(user.id)
        await s.apps.create(otherApp)
        const elsewhere = grantRecord(otherApp, other)
        await s.oauth2Grants.create(elsewhere, [accessToken(elsewhere.id)], unique('code-never-stored'))
        assert.equal(await s.oauth2Grants.revokeAll({ userId: user.id }, NOW + 4), 1)
        assert.equal(await s.oauth2Grants.revokeAll({ appId: app.id }, NOW + 5), 1)
        assert.deepEqual((await s.oauth2Grants.listLive(other.id)).map((g) => g.id), [elsewhere.id], "another app's grant stays")
      })
    })

    test("revokeGrants deletes the codes of the same not yet redeemed, and only those: another app's or person's code still redeems", async () => {
      await withApp(async (s, user, app) => {
        const other = userRecord()
        await s.users.create(other)
        const otherApp = appRecord(user.id)
        await s.apps.create(otherApp)
        const codes = { mine: unique('code'), theirs: unique('code'), elsewhere: unique('code') }
        await s.oauth2Codes.create(codes.mine, codeRecord(app, user))
        await s.oauth2Codes.create(codes.theirs, codeRecord(app, other))
        await s.oauth2Codes.create(codes.elsewhere, codeRecord(otherApp, user))
        const redeemed = await grantWithTokens(s, app, user)
        assert.equal(await s.oauth2Grants.revokeAll({ appId: app.id, userId: user.id }, NOW + 2), 1)
        assert.deepEqual(await s.oauth2Codes.redeem(codes.mine, NOW + 3), { outcome: 'unknown' })
        assert.equal((await s.oauth2Codes.redeem(redeemed.code, NOW + 3)).outcome, 'reused', 'a redeemed code is kept: its reuse is still known')
        assert.equal((await s.oauth2Codes.redeem(codes.theirs, NOW + 3)).outcome, 'redeemed')
        await s.oauth2Codes.create(codes.theirs + 'x', codeRecord(app, other))
        assert.equal(await s.oauth2Grants.revokeAll({ userId: other.id }, NOW + 4), 0)
        assert.deepEqual(await s.oauth2Codes.redeem(codes.theirs + 'x', NOW + 5), { outcome: 'unknown' }, 'ended by the person alone')
        assert.equal(await s.oauth2Grants.revokeAll({ appId: app.id }, NOW + 6), 0)
        assert.equal((await s.oauth2Codes.redeem(codes.elsewhere, NOW + 7)).outcome, 'redeemed', "another app's code stays")
        await s.oauth2Codes.create(codes.elsewhere + 'x', codeRecord(otherApp, other))
        await s.oauth2Grants.revokeAll({ appId: otherApp.id }, NOW + 8)
        assert.deepEqual(await s.oauth2Codes.redeem(codes.elsewhere + 'x', NOW + 9), { outcome: 'unknown' }, 'ended by the app alone')
      })
    })

    test('deleting the app removes its client, codes, grants and tokens', async () => {
      await withApp(async (s, user, app) => {
        await s.oauth2Clients.save(clientRecord(app.id))
        const { access, code } = await grantWithTokens(s, app, user)
        assert.equal(await s.apps.delete(app.id), true)
        assert.equal(await s.oauth2Clients.findByAppId(app.id), undefined)
        assert.equal(await s.oauth2Grants.findToken(access.token), undefined)
        assert.deepEqual(await s.oauth2Codes.redeem(code, NOW + 9), { outcome: 'unknown' })
        assert.deepEqual(await s.oauth2Grants.listLive(user.id), [])
      })
    })

    test('expired codes are deleted, live ones kept', async () => {
      await withApp(async (s, user, app) => {
        const old = unique('code')
        const live = unique('code')
        await s.oauth2Codes.create(old, codeRecord(app, user, { expiresAtMs: NOW }))
        await s.oauth2Codes.create(live, codeRecord(app, user, { expiresAtMs: NOW + 60_000 }))
        assert.equal(await s.oauth2Codes.deleteExpired(NOW + 1), 1)
        assert.equal((await s.oauth2Codes.redeem(live, NOW + 2)).outcome, 'redeemed')
        assert.equal((await s.oauth2Codes.redeem(old, NOW + 2)).outcome, 'unknown')
      })
    })
  })
}
