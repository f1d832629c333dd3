import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueUserToken } from '../../../src/domain/oauth2-user/token.ts'
import { findUserTokenHolder } from '../../../src/domain/oauth2-user/user-token.ts'
import { E } from '../../../src/errors/catalogue.ts'
import type { UserRecord } from '../../../src/storage/records.ts'
import { assertServiceError, openDomainTier, type DomainTier } from '../../helpers/domain-tier.ts'
import { makeUser } from '../../helpers/fixtures.ts'
import { allowedCode, exchange, newVerifier, oauth2Client, REDIRECT, tokenInput, type OAuth2Client } from '../../helpers/oauth2-user.ts'

// POST /2/oauth2/token as a use case (src/domain/oauth2-user/token.ts) on real storage: what a code
// and a refresh token give, to whom, for how long, and what their reuse ends.

describe('issueUserToken (domain tier)', () => {
  let tier: DomainTier
  let person: UserRecord
  before(async () => {
    tier = await openDomainTier()
    person = (await makeUser(tier.domain)).user
  })
  after(() => tier.close())

  const isLive = async (accessToken: string) => (await findUserTokenHolder(tier.domain, accessToken)) !== undefined
  const redeem = (client: OAuth2Client, issued: { code: string; verifier: string }) =>
    issueUserToken(tier.domain, tokenInput(client, { grant_type: 'authorization_code', code: issued.code, redirect_uri: REDIRECT, code_verifier: issued.verifier }))
  const grantRevocations = async () => (await tier.domain.stores.audit.list({ limit: 10_000 })).filter((row) => row.event === 'oauth2_grant.revoked')

  test("a used code replayed under another client, or without its verifier, ends nobody's grant; its own client replaying it ends the grant, audited with the grant's app and person", async () => {
    const client = await oauth2Client(tier.domain, { type: 'public' })
    const stranger = await oauth2Client(tier.domain, { type: 'public' })
    const issued = await allowedCode(tier.domain, client, person)
    const tokens = await exchange(tier.domain, client, issued)
    const before = (await grantRevocations()).length
    await assertServiceError(redeem(stranger, issued), E.oauth2InvalidRequest.code, 'another client')
    await assertServiceError(redeem(client, { code: issued.code, verifier: newVerifier() }), E.oauth2InvalidRequest.code, 'its client without its verifier')
    assert.equal(await isLive(tokens.access_token), true, 'the grant lives on')
    assert.equal((await grantRevocations()).length, before, 'nothing audited')

    await assertServiceError(redeem(client, issued), E.oauth2InvalidRequest.code, 'its own client again')
    assert.equal(await isLive(tokens.access_token), false, 'the reuse ended the grant')
    const [revoked] = (await grantRevocations()).slice(before)
    assert.deepEqual([revoked?.appId, revoked?.userId, revoked?.detail], [client.app.id, person.id, { reason: 'code_reused' }])
  })
})
