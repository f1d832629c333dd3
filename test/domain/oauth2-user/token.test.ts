import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { updateUser } from '../../../src/domain/admin/people.ts'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import { E } from '../../../src/errors/catalogue.ts'
import { assertServiceError } from '../../helpers/domain-tier.ts'
import { makeUser } from '../../helpers/fixtures.ts'
import { allowedCode, exchange, newVerifier, oauth2Client, oauth2UserTier, refresh } from '../../helpers/oauth2-user.ts'

// POST /2/oauth2/token as a use case (src/domain/oauth2-user/token.ts) on real storage: what a code
// and a refresh token give, to whom, for how long, and what their reuse ends.

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

describe('issueUserToken (domain tier)', () => {
  const tier = oauth2UserTier()

  const grantRevocations = async () => (await tier.domain.stores.audit.list({ limit: 10_000 })).filter((row) => row.event === 'oauth2_grant.revoked')

  test("a used code replayed under another client, or without its verifier, ends nobody's grant; its own client replaying it ends the grant, audited with the grant's app and person", async () => {
    const client = await oauth2Client(tier.domain, { type: 'public' })
    const stranger = await oauth2Client(tier.domain, { type: 'public' })
    const issued = await allowedCode(tier.domain, client, tier.person)
    const tokens = await exchange(tier.domain, client, issued)
    const before = (await grantRevocations()).length
    await assertServiceError(tier.redeem(stranger, issued), E.oauth2InvalidRequest.code, 'another client')
    await assertServiceError(tier.redeem(client, { code: issued.code, verifier: newVerifier() }), E.oauth2InvalidRequest.code, 'its client without its verifier')
    assert.equal(await tier.isLive(tokens.access_token), true, 'the grant lives on')
    assert.equal((await grantRevocations()).length, before, 'nothing audited')

    await assertServiceError(tier.redeem(client, issued), E.oauth2InvalidRequest.code, 'its own client again')
    assert.equal(await tier.isLive(tokens.access_token), false, 'the reuse ended the grant')
    const [revoked] = (await grantRevocations()).slice(before)
    assert.deepEqual([revoked?.appId, revoked?.userId, revoked?.detail], [client.app.id, tier.person.id, { reason: 'code_reused' }])
  })

  test('a code allowed before the app is suspended gives no tokens once the suspension is lifted; one allowed after, tokens', async () => {
    const client = await oauth2Client(tier.domain)
    const before = await allowedCode(tier.domain, client, tier.person)
    await updateApp(tier.domain, client.app.id, { isSuspended: true })
    await updateApp(tier.domain, client.app.id, { isSuspended: false })
    await assertServiceError(tier.redeem(client, before), E.oauth2InvalidRequest.code)
    const after = await allowedCode(tier.domain, client, tier.person)
    assert.ok((await tier.redeem(client, after)).answer.access_token)
  })

  test('a code allowed before its person is disabled gives no tokens once they are enabled again; one allowed after, tokens', async () => {
    const client = await oauth2Client(tier.domain)
    const { user } = await makeUser(tier.domain)
    const before = await allowedCode(tier.domain, client, user)
    await updateUser(tier.domain, user.id, { disabled: true })
    await updateUser(tier.domain, user.id, { disabled: false })
    await assertServiceError(tier.redeem(client, before), E.oauth2InvalidRequest.code)
    const after = await allowedCode(tier.domain, client, user)
    assert.ok((await tier.redeem(client, after)).answer.access_token)
  })

  test("once the app's level is lowered to read, a refresh answers without the write scopes; raised again, with what the person allowed", async () => {
    const client = await oauth2Client(tier.domain, { accessLevel: 'read-write-directmessages' })
    const tokens = await exchange(tier.domain, client, await allowedCode(tier.domain, client, tier.person, 'tweet.read tweet.write dm.write offline.access'))
    assert.equal(tokens.scope, 'tweet.read tweet.write offline.access dm.write')
    await updateApp(tier.domain, client.app.id, { accessLevel: 'read' })
    const lowered = await refresh(tier.domain, client, tokens.refresh_token)
    assert.equal(lowered.scope, 'tweet.read offline.access')
    await updateApp(tier.domain, client.app.id, { accessLevel: 'read-write' })
    assert.equal((await refresh(tier.domain, client, lowered.refresh_token)).scope, 'tweet.read tweet.write offline.access dm.write')
  })

  test('a refresh token outlives the access token by far: it refreshes after the two hours, and 180 days unused it ends', async () => {
    const client = await oauth2Client(tier.domain)
    const tokens = await exchange(tier.domain, client, await allowedCode(tier.domain, client, tier.person))
    tier.clock.advance(2 * HOUR_MS)
    assert.equal(await tier.isLive(tokens.access_token), false, 'the access token lives two hours')
    const next = await refresh(tier.domain, client, tokens.refresh_token)
    assert.equal(await tier.isLive(next.access_token), true)
    tier.clock.advance(180 * DAY_MS - 1)
    const last = await refresh(tier.domain, client, next.refresh_token)
    tier.clock.advance(180 * DAY_MS)
    await assertServiceError(refresh(tier.domain, client, last.refresh_token), E.oauth2InvalidToken.code, '180 days unused')
  })

  test("a refresh token presented with another client's credentials is refused and changes nothing: its own client still refreshes with it", async () => {
    const client = await oauth2Client(tier.domain)
    const other = await oauth2Client(tier.domain)
    const tokens = await exchange(tier.domain, client, await allowedCode(tier.domain, client, tier.person))
    await assertServiceError(refresh(tier.domain, other, tokens.refresh_token), E.oauth2InvalidToken.code)
    assert.equal(await tier.isLive(tokens.access_token), true, 'the access token still works')
    assert.ok((await refresh(tier.domain, client, tokens.refresh_token)).access_token, 'the refresh token was not spent')
  })
})
