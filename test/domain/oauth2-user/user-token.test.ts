import { after, before, describe, test } from 'node:test'
import { revokeBearerToken } from '../../../src/domain/admin/people.ts'
import { handOutBearerToken } from '../../../src/domain/oauth2/bearer-token.ts'
import { verifyUserBearer } from '../../../src/domain/oauth2-user/user-token.ts'
import { E } from '../../../src/errors/catalogue.ts'
import { assertServiceError, openDomainTier, type DomainTier } from '../../helpers/domain-tier.ts'
import { makeApp } from '../../helpers/fixtures.ts'

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
})
