import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { revokeUserToken } from '../../../src/domain/oauth2-user/revoke.ts'
import { allowedCode, assertOAuth2Error, exchange, type OAuth2Client, oauth2Client, oauth2UserTier, refresh, tokenInput } from '../../helpers/oauth2-user.ts'

// POST /2/oauth2/revoke as a use case (src/domain/oauth2-user/revoke.ts) on real storage: either token
// of a grant ends the whole grant (RFC 7009 §2.1); anything else is answered the same and changes nothing (§2.2).

describe('revokeUserToken (domain tier)', () => {
  const tier = oauth2UserTier()

  const revoke = async (client: OAuth2Client, token: string | undefined) => (await revokeUserToken(tier.domain, tokenInput(client, { token: String(token) }, '/2/oauth2/revoke'))).revoked

  test("a token revoked with another client's credentials gets the same answer and changes nothing; its own client's revocation ends the grant", async () => {
    const client = await oauth2Client(tier.domain, { type: 'public' })
    const other = await oauth2Client(tier.domain)
    const tokens = await exchange(tier.domain, client, await allowedCode(tier.domain, client, tier.person))
    const revocations = async () => (await tier.domain.stores.audit.list({ limit: 10_000 })).filter((row) => row.event === 'oauth2_grant.revoked').length
    const before = await revocations()
    assert.equal(await revoke(other, tokens.refresh_token), true, 'RFC 7009 §2.2: answered as for any token')
    assert.equal(await revoke(other, tokens.access_token), true)
    assert.equal(await tier.isLive(tokens.access_token), true, 'the grant lives on')
    assert.equal(await revocations(), before, 'nothing audited')
    assert.equal(await revoke(client, tokens.refresh_token), true)
    assert.equal(await tier.isLive(tokens.access_token), false, "its own client's revocation ends the grant")
    assert.equal(await revocations(), before + 1)
  })

  const revocationsOf = async (client: OAuth2Client) =>
    (await tier.domain.stores.audit.list({ limit: 10_000 })).filter((row) => row.event === 'oauth2_grant.revoked' && row.appId === client.app.id).map((row) => row.detail)

  test('revoking the access token ends the grant: the refresh token no longer refreshes', async () => {
    const client = await oauth2Client(tier.domain)
    const tokens = await exchange(tier.domain, client, await allowedCode(tier.domain, client, tier.person))
    assert.equal(await revoke(client, tokens.access_token), true)
    assert.equal(await tier.isLive(tokens.access_token), false)
    await assertOAuth2Error(refresh(tier.domain, client, tokens.refresh_token), { error: 'invalid_request', status: 400 })
    assert.deepEqual(await revocationsOf(client), [{ reason: 'revoke', token_type: 'access' }])
  })

  test('revoking the refresh token ends the access token with it', async () => {
    const client = await oauth2Client(tier.domain)
    const tokens = await exchange(tier.domain, client, await allowedCode(tier.domain, client, tier.person))
    assert.equal(await revoke(client, tokens.refresh_token), true)
    assert.equal(await tier.isLive(tokens.access_token), false)
    assert.deepEqual(await revocationsOf(client), [{ reason: 'revoke', token_type: 'refresh' }])
  })

  test("a token already revoked, or no one's, gets the same answer and nothing is recorded again; another grant of the client lives on", async () => {
    const client = await oauth2Client(tier.domain)
    const ended = await exchange(tier.domain, client, await allowedCode(tier.domain, client, tier.person))
    const kept = await exchange(tier.domain, client, await allowedCode(tier.domain, client, tier.person))
    await revoke(client, ended.access_token)
    assert.equal(await revoke(client, ended.access_token), true, 'again')
    assert.equal(await revoke(client, ended.refresh_token), true, 'its other token')
    assert.equal(await revoke(client, 'x'.repeat(40)), true, "no one's")
    assert.equal((await revocationsOf(client)).length, 1)
    assert.equal(await tier.isLive(kept.access_token), true)
  })

  test('no token is invalid_request; a wrong client secret is invalid_client, and nothing ends', async () => {
    const client = await oauth2Client(tier.domain)
    const tokens = await exchange(tier.domain, client, await allowedCode(tier.domain, client, tier.person))
    await assertOAuth2Error(revokeUserToken(tier.domain, tokenInput(client, {}, '/2/oauth2/revoke')), { error: 'invalid_request', status: 400 })
    await assertOAuth2Error(revoke({ ...client, clientSecret: `${client.clientSecret}x` }, tokens.access_token), { error: 'invalid_client', status: 401 })
    assert.equal(await tier.isLive(tokens.access_token), true)
  })
})
