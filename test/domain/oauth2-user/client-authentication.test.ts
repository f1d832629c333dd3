import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { authenticateOAuth2Client } from '../../../src/domain/oauth2-user/client-authentication.ts'
import { E } from '../../../src/errors/catalogue.ts'
import { assertRefusedOnlyWhenBrokenCall, assertServiceError, openDomainTier, type DomainTier } from '../../helpers/domain-tier.ts'
import { basic, oauth2Client } from '../../helpers/oauth2-user.ts'

// Client authentication at /2/oauth2/token and /2/oauth2/revoke (src/domain/oauth2-user/client-authentication.ts).

describe('authenticateOAuth2Client (domain tier)', () => {
  let tier: DomainTier
  before(async () => {
    tier = await openDomainTier()
  })
  after(() => tier.close())

  const authenticate = (params: Record<string, string>, authorization?: string) => authenticateOAuth2Client(tier.domain, { authorization, params: Object.entries(params) })

  test('an empty client_secret in the body counts as no secret, as the empty Basic password does: a public client is accepted, a confidential one lacks its secret', async () => {
    const publicClient = await oauth2Client(tier.domain, { type: 'public' })
    const found = await assertRefusedOnlyWhenBrokenCall((v) => authenticate({ client_id: publicClient.clientId, client_secret: v === 'broken' ? 'x' : '' }), E.oauth2InvalidClient.code)
    assert.equal(found.app.id, publicClient.app.id)
    assert.equal((await authenticate({}, basic(publicClient.clientId, ''))).app.id, publicClient.app.id, 'the empty Basic password alike')

    const confidential = await oauth2Client(tier.domain)
    await assertServiceError(authenticate({ client_id: confidential.clientId, client_secret: '' }), E.oauth2MissingClientAuthentication.code, 'as without client_secret')
    await assertServiceError(authenticate({ client_id: confidential.clientId }), E.oauth2MissingClientAuthentication.code)
    const withBasic = await authenticate({ client_id: confidential.clientId, client_secret: '' }, basic(confidential.clientId, confidential.clientSecret!))
    assert.equal(withBasic.app.id, confidential.app.id, 'an empty body secret beside Basic does not disagree with it')
  })
})
