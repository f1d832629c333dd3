import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { updateUser } from '../../../src/domain/admin/people.ts'
import { issueUserToken } from '../../../src/domain/oauth2-user/token.ts'
import { revokeUserToken } from '../../../src/domain/oauth2-user/revoke.ts'
import { makeUser } from '../../helpers/fixtures.ts'
import { allowedCode, assertOAuth2Error, exchange, type OAuth2Client, oauth2Client, oauth2UserTier, refresh, tokenInput } from '../../helpers/oauth2-user.ts'

// The refresh_token grant of POST /2/oauth2/token (RFC 6749 §6, rotated: RFC 9700 §4.14) as a use
// case (src/domain/oauth2-user/token.ts) on real storage: each refresh hands out a new pair and
// spends the old one; a spent refresh token presented again is a copy, and ends the whole grant.

/** What a dead or foreign refresh token gets: RFC 6749 §5.2 has no invalid_token, so X answers invalid_request. */
const REFUSED_TOKEN = { error: 'invalid_request', status: 400 }

describe('refresh rotation (domain tier)', () => {
  const tier = oauth2UserTier()

  const tokensOf = async (client: OAuth2Client, scope?: string) => exchange(tier.domain, client, await allowedCode(tier.domain, client, tier.person, scope))
  const refreshWith = async (client: OAuth2Client, fields: Record<string, string>) => (await issueUserToken(tier.domain, tokenInput(client, { grant_type: 'refresh_token', ...fields }))).answer

  test('a refresh gives a new access token and a new refresh token with the same scopes; the old access token ends', async () => {
    const client = await oauth2Client(tier.domain)
    const first = await tokensOf(client)
    const next = await refresh(tier.domain, client, first.refresh_token)
    assert.equal(next.token_type, 'bearer')
    assert.equal(next.expires_in, 7200)
    assert.equal(next.scope, first.scope)
    assert.ok(next.refresh_token)
    assert.notEqual(next.access_token, first.access_token)
    assert.notEqual(next.refresh_token, first.refresh_token)
    assert.equal(await tier.isLive(next.access_token), true)
    assert.equal(await tier.isLive(first.access_token), false, 'replaced by the refresh')
  })

  test('after rotation the old refresh token is refused; presenting it ends the grant: the new pair dies too', async () => {
    const client = await oauth2Client(tier.domain)
    const first = await tokensOf(client)
    const next = await refresh(tier.domain, client, first.refresh_token)
    await assertOAuth2Error(refresh(tier.domain, client, first.refresh_token), REFUSED_TOKEN, 'the spent refresh token')
    assert.equal(await tier.isLive(next.access_token), false, 'the reuse ended the grant')
    await assertOAuth2Error(refresh(tier.domain, client, next.refresh_token), REFUSED_TOKEN, 'the newest refresh token')
    const revoked = (await tier.domain.stores.audit.list({ limit: 10_000 })).filter((row) => row.event === 'oauth2_grant.revoked' && row.appId === client.app.id)
    assert.deepEqual(revoked.map((row) => row.detail), [{ reason: 'refresh_token_reused' }])
  })

  test('a chain of refreshes keeps working while each is used once; the grant of one chain ending leaves another grant of the same client alive', async () => {
    const client = await oauth2Client(tier.domain)
    const other = await tokensOf(client)
    let current = await tokensOf(client)
    for (let i = 0; i < 3; i++) current = await refresh(tier.domain, client, current.refresh_token)
    assert.equal(await tier.isLive(current.access_token), true)
    const spent = current.refresh_token
    await refresh(tier.domain, client, spent)
    await assertOAuth2Error(refresh(tier.domain, client, spent), REFUSED_TOKEN)
    assert.equal(await tier.isLive(other.access_token), true, "another of the client's grants")
    assert.ok((await refresh(tier.domain, client, other.refresh_token)).access_token)
  })

  test('an access token, a token no one issued, or none, is refused; the refresh token itself, tokens', async () => {
    const client = await oauth2Client(tier.domain)
    const tokens = await tokensOf(client)
    await assertOAuth2Error(refresh(tier.domain, client, tokens.access_token), REFUSED_TOKEN, 'an access token')
    await assertOAuth2Error(refresh(tier.domain, client, 'x'.repeat(40)), REFUSED_TOKEN, 'unknown')
    await assertOAuth2Error(refreshWith(client, {}), { error: 'invalid_request', status: 400 }, 'missing')
    assert.equal(await tier.isLive(tokens.access_token), true, 'the refusals ended nothing')
    assert.ok((await refresh(tier.domain, client, tokens.refresh_token)).access_token)
  })

  test('a scope within the grant is accepted; one beyond it is invalid_scope and spends nothing', async () => {
    const client = await oauth2Client(tier.domain)
    const tokens = await tokensOf(client, 'tweet.read users.read offline.access')
    await assertOAuth2Error(refreshWith(client, { refresh_token: String(tokens.refresh_token), scope: 'tweet.read tweet.write' }), { error: 'invalid_scope', status: 400 })
    await assertOAuth2Error(refreshWith(client, { refresh_token: String(tokens.refresh_token), scope: 'tweet.read nonsense' }), { error: 'invalid_scope', status: 400 })
    assert.ok((await refreshWith(client, { refresh_token: String(tokens.refresh_token), scope: 'tweet.read' })).access_token)
  })

  test('a grant revoked, or its person disabled, refreshes no more', async () => {
    const client = await oauth2Client(tier.domain)
    const revoked = await tokensOf(client)
    await revokeUserToken(tier.domain, tokenInput(client, { token: revoked.access_token }, '/2/oauth2/revoke'))
    await assertOAuth2Error(refresh(tier.domain, client, revoked.refresh_token), REFUSED_TOKEN, 'revoked')

    const { user } = await makeUser(tier.domain)
    const theirs = await exchange(tier.domain, client, await allowedCode(tier.domain, client, user))
    await updateUser(tier.domain, user.id, { disabled: true })
    await assertOAuth2Error(refresh(tier.domain, client, theirs.refresh_token), REFUSED_TOKEN, 'disabled')
    assert.ok((await refresh(tier.domain, client, (await tokensOf(client)).refresh_token)).access_token, 'a live grant of the same client still refreshes')
  })
})
