import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { revokeBearerToken, updateUser } from '../../../src/domain/admin/people.ts'
import { handOutBearerToken } from '../../../src/domain/oauth2/bearer-token.ts'
import { revokeUserToken } from '../../../src/domain/oauth2-user/revoke.ts'
import { verifyUserBearer } from '../../../src/domain/oauth2-user/user-token.ts'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import { E } from '../../../src/errors/catalogue.ts'
import { assertServiceError, openDomainTier, type DomainTier } from '../../helpers/domain-tier.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { allowedCode, exchange, oauth2Client, refresh, tokenInput } from '../../helpers/oauth2-user.ts'

// Who a `Bearer` on GET /2/users/me speaks for (src/domain/oauth2-user/user-token.ts), on real storage.

describe('verifyUserBearer (domain tier)', () => {
  let tier: DomainTier
  before(async () => {
    tier = await openDomainTier()
  })
  after(() => tier.close())

  test("a live app-only bearer token gets X's 403 Unsupported Authentication; once invalidated, the v2 401 like any dead token", async () => {
    const app = await makeApp(tier.domain)
    const { token } = await handOutBearerToken(tier.domain, app.id, null)
    await assertServiceError(verifyUserBearer(tier.domain, `Bearer ${token}`), E.v2UnsupportedAuthentication.code, 'live')
    await revokeBearerToken(tier.domain, app.id)
    await assertServiceError(verifyUserBearer(tier.domain, `Bearer ${token}`), E.v2Unauthorized.code, 'invalidated')
  })

  const HOUR_MS = 3_600_000
  const live = async (scope = 'tweet.read users.read offline.access', accessLevel: 'read' | 'read-write' = 'read-write') => {
    const client = await oauth2Client(tier.domain, { accessLevel })
    const { user } = await makeUser(tier.domain)
    return { client, user, tokens: await exchange(tier.domain, client, await allowedCode(tier.domain, client, user, scope)) }
  }

  test('a live user access token speaks for its person and app, with the scopes allowed, for two hours', async () => {
    const { client, user, tokens } = await live('tweet.read tweet.write users.read offline.access')
    const holder = await verifyUserBearer(tier.domain, `Bearer ${tokens.access_token}`)
    assert.deepEqual([holder.user.id, holder.app.id, holder.scopes, holder.accessLevel], [user.id, client.app.id, ['tweet.read', 'tweet.write', 'users.read', 'offline.access'], 'read-write'])
    tier.clock.advance(2 * HOUR_MS - 1)
    assert.equal((await verifyUserBearer(tier.domain, `Bearer ${tokens.access_token}`)).user.id, user.id, 'a moment before two hours')
    tier.clock.advance(1)
    await assertServiceError(verifyUserBearer(tier.domain, `Bearer ${tokens.access_token}`), E.v2Unauthorized.code, 'two hours old')
  })

  test('no bearer, a refresh token, a replaced or revoked access token, or anything else gets the v2 401', async () => {
    const { client, tokens } = await live()
    for (const authorization of [undefined, '', 'Bearer', `Basic ${tokens.access_token}`, `Bearer ${tokens.refresh_token}`, `Bearer ${tokens.access_token}x`, 'Bearer x']) {
      await assertServiceError(verifyUserBearer(tier.domain, authorization), E.v2Unauthorized.code, String(authorization))
    }
    const next = await refresh(tier.domain, client, tokens.refresh_token)
    await assertServiceError(verifyUserBearer(tier.domain, `Bearer ${tokens.access_token}`), E.v2Unauthorized.code, 'replaced by a refresh')
    await revokeUserToken(tier.domain, tokenInput(client, { token: next.access_token }, '/2/oauth2/revoke'))
    await assertServiceError(verifyUserBearer(tier.domain, `Bearer ${next.access_token}`), E.v2Unauthorized.code, 'revoked')
  })

  test("the app suspended or the person disabled, the token gets the v2 401 (lifted, it stays dead); someone else's live token still answers", async () => {
    const suspended = await live()
    await updateApp(tier.domain, suspended.client.app.id, { isSuspended: true })
    await assertServiceError(verifyUserBearer(tier.domain, `Bearer ${suspended.tokens.access_token}`), E.v2Unauthorized.code, 'suspended')
    await updateApp(tier.domain, suspended.client.app.id, { isSuspended: false })
    await assertServiceError(verifyUserBearer(tier.domain, `Bearer ${suspended.tokens.access_token}`), E.v2Unauthorized.code, 'suspension lifted')
    const disabled = await live()
    await updateUser(tier.domain, disabled.user.id, { disabled: true })
    await assertServiceError(verifyUserBearer(tier.domain, `Bearer ${disabled.tokens.access_token}`), E.v2Unauthorized.code, 'disabled')
    const other = await live()
    assert.equal((await verifyUserBearer(tier.domain, `Bearer ${other.tokens.access_token}`)).user.id, other.user.id, 'a live one')
  })

  test("once the app's level is lowered to read, the token's scopes lose their writes and its level is read", async () => {
    const { client, tokens } = await live('tweet.read tweet.write users.read')
    await updateApp(tier.domain, client.app.id, { accessLevel: 'read' })
    const holder = await verifyUserBearer(tier.domain, `Bearer ${tokens.access_token}`)
    assert.deepEqual([holder.scopes, holder.accessLevel], [['tweet.read', 'users.read'], 'read'])
  })
})
