import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { checkAuthorizationRequest } from '../../../src/domain/oauth2-user/authorization-request.ts'
import { E } from '../../../src/errors/catalogue.ts'
import { ACCESS_LEVELS } from '../../../src/storage/records.ts'
import { assertServiceError, openDomainTier, type DomainTier } from '../../helpers/domain-tier.ts'
import { authorizeParameters, newVerifier, oauth2Client, REDIRECT } from '../../helpers/oauth2-user.ts'

// GET /i/oauth2/authorize's checks (src/domain/oauth2-user/authorization-request.ts): what reaches
// the consent page, what goes back to the app, and what only an error page may answer.

describe('checkAuthorizationRequest (domain tier)', () => {
  let tier: DomainTier
  before(async () => {
    tier = await openDomainTier()
  })
  after(() => tier.close())

  test('a redirect_uri that extends the registered one (a path, a query, a fragment, a slash) gets the error page, never the consent page; the registered one exactly, the page', async () => {
    const client = await oauth2Client(tier.domain)
    const parameters = (redirectUri: string) => ({ ...authorizeParameters(client, newVerifier(), 'tweet.read'), redirect_uri: redirectUri })
    for (const extended of [`${REDIRECT}/x`, `${REDIRECT}?x`, `${REDIRECT}?x=1`, `${REDIRECT}#x`, `${REDIRECT}/`, `${REDIRECT}x`, `${REDIRECT}/../callback`]) {
      // E.oauth2RedirectNotRegistered is a 400 page of its own (src/pages/oauth2-consent-routes.ts): no redirect, no form.
      await assertServiceError(checkAuthorizationRequest(tier.domain, parameters(extended)), E.oauth2RedirectNotRegistered.code, extended)
    }
    assert.equal((await checkAuthorizationRequest(tier.domain, parameters(REDIRECT))).outcome, 'valid')
  })

  test('the scopes of each access level: read gets no write scope (invalid_scope back to the app, naming them); read-write and read-write-directmessages get every scope', async () => {
    const every = 'tweet.read tweet.write users.read dm.read dm.write follows.write offline.access'
    const outcomes: Record<string, unknown> = {}
    for (const accessLevel of ACCESS_LEVELS) {
      const client = await oauth2Client(tier.domain, { accessLevel })
      const check = await checkAuthorizationRequest(tier.domain, authorizeParameters(client, newVerifier(), every))
      outcomes[accessLevel] = check.outcome === 'valid' ? check.request.scopes.join(' ') : Object.fromEntries(new URL(check.redirectTo).searchParams)
      if (accessLevel === 'read') {
        const readOnly = await checkAuthorizationRequest(tier.domain, authorizeParameters(client, newVerifier(), 'tweet.read users.read dm.read offline.access'))
        assert.equal(readOnly.outcome === 'valid' && readOnly.request.scopes.join(' '), 'tweet.read users.read offline.access dm.read')
      }
    }
    assert.deepEqual(outcomes, {
      read: { error: 'invalid_scope', error_description: 'this app may only read: tweet.write follows.write dm.write needs write access', state: 'state-1' },
      'read-write': 'tweet.read tweet.write users.read follows.write offline.access dm.read dm.write',
      'read-write-directmessages': 'tweet.read tweet.write users.read follows.write offline.access dm.read dm.write',
    })
  })
})
