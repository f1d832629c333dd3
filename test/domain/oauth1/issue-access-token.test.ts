import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { handOutAccessToken, issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { openDomainTier, type DomainTier } from '../../helpers/domain-tier.ts'

let tier: DomainTier
before(async () => {
  tier = await openDomainTier()
})
after(() => tier.close())

const issuedDetails = async (appId: string) =>
  (await tier.domain.stores.audit.list({ appId, limit: 10 })).filter((row) => row.event === 'access_token.issued').map((row) => row.detail)

// Two units of work for the same grant at once (two instances on PostgreSQL): both read "no live
// token", the second one's insert then loses on the one-live index and hands out the winner's.
// SQLite runs units one after the other, so the second unit's read is made to answer as it would
// have before the first one committed.
test('a unit that read "no live token" before another unit issued one hands out that token, audited as reused', async () => {
  const app = await makeApp(tier.domain)
  const { user } = await makeUser(tier.domain)
  const grant = { appId: app.id, userId: user.id, accessLevel: app.accessLevel }
  const first = await issueOrReuseAccessToken(tier.domain, grant, { via: 'exchange' })
  const second = await tier.domain.stores.transaction((tx) => {
    const readBeforeTheOtherCommitted = { ...tx, accessTokens: { ...tx.accessTokens, findLive: async () => undefined } }
    return handOutAccessToken(readBeforeTheOtherCommitted, tier.domain.clock, grant, { via: 'exchange' })
  })
  assert.equal(second.token, first.token)
  // Newest first.
  assert.deepEqual(await issuedDetails(app.id), [
    { access_level: app.accessLevel, via: 'exchange', reused: true },
    { access_level: app.accessLevel, via: 'exchange', reused: false },
  ])
})
