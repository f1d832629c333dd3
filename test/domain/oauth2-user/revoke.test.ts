import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { revokeUserToken } from '../../../src/domain/oauth2-user/revoke.ts'
import type { UserRecord } from '../../../src/storage/records.ts'
import { openDomainTier, type DomainTier } from '../../helpers/domain-tier.ts'
import { makeUser } from '../../helpers/fixtures.ts'
import { allowedCode, exchange, isLiveUserToken, oauth2Client, tokenInput, type OAuth2Client } from '../../helpers/oauth2-user.ts'

// POST /2/oauth2/revoke as a use case (src/domain/oauth2-user/revoke.ts) on real storage.

describe('revokeUserToken (domain tier)', () => {
  let tier: DomainTier
  let person: UserRecord
  before(async () => {
    tier = await openDomainTier()
    person = (await makeUser(tier.domain)).user
  })
  after(() => tier.close())

  const isLive = (accessToken: string) => isLiveUserToken(tier.domain, accessToken)
  const revoke = async (client: OAuth2Client, token: string | undefined) => (await revokeUserToken(tier.domain, tokenInput(client, { token: String(token) }, '/2/oauth2/revoke'))).revoked

  test("a token revoked with another client's credentials gets the same answer and changes nothing; its own client's revocation ends the grant", async () => {
    const client = await oauth2Client(tier.domain, { type: 'public' })
    const other = await oauth2Client(tier.domain)
    const tokens = await exchange(tier.domain, client, await allowedCode(tier.domain, client, person))
    const revocations = async () => (await tier.domain.stores.audit.list({ limit: 10_000 })).filter((row) => row.event === 'oauth2_grant.revoked').length
    const before = await revocations()
    assert.equal(await revoke(other, tokens.refresh_token), true, 'RFC 7009 §2.2: answered as for any token')
    assert.equal(await revoke(other, tokens.access_token), true)
    assert.equal(await isLive(tokens.access_token), true, 'the grant lives on')
    assert.equal(await revocations(), before, 'nothing audited')
    assert.equal(await revoke(client, tokens.refresh_token), true)
    assert.equal(await isLive(tokens.access_token), false, "its own client's revocation ends the grant")
    assert.equal(await revocations(), before + 1)
  })
})
