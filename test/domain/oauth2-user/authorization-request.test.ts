import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { checkAuthorizationRequest, parametersOfQuery } from '../../../src/domain/oauth2-user/authorization-request.ts'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import { E } from '../../../src/errors/catalogue.ts'
import { ACCESS_LEVELS } from '../../../src/storage/records.ts'
import { assertServiceError, openDomainTier, type DomainTier } from '../../helpers/domain-tier.ts'
import { authorizeParameters, challengeOf, newVerifier, oauth2Client, REDIRECT } from '../../helpers/oauth2-user.ts'

// GET /i/oauth2/authorize's checks (src/domain/oauth2-user/authorization-request.ts, RFC 6749
// §4.1.2.1): what reaches the consent page, what goes back to the app, and what only an error page
// may answer.

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

  test('no client_id, or one no client has, gets the error page; so does a suspended app; the client itself, the consent page', async () => {
    const client = await oauth2Client(tier.domain)
    const parameters = authorizeParameters(client, newVerifier(), 'tweet.read')
    await assertServiceError(checkAuthorizationRequest(tier.domain, { ...parameters, client_id: undefined }), E.oauth2UnknownClient.code, 'none')
    await assertServiceError(checkAuthorizationRequest(tier.domain, { ...parameters, client_id: `${client.clientId}x` }), E.oauth2UnknownClient.code, 'unknown')
    await updateApp(tier.domain, client.app.id, { isSuspended: true })
    await assertServiceError(checkAuthorizationRequest(tier.domain, parameters), E.appSuspended.code, 'suspended')
    await updateApp(tier.domain, client.app.id, { isSuspended: false })
    assert.equal((await checkAuthorizationRequest(tier.domain, parameters)).outcome, 'valid')
  })

  test('each fault of a known client goes back to its redirect URI with the RFC 6749 error, a description and the state', async () => {
    const client = await oauth2Client(tier.domain)
    const valid = authorizeParameters(client, newVerifier(), 'tweet.read')
    const faults: Array<[string, Record<string, string | undefined>, string]> = [
      ['no response_type', { response_type: undefined }, 'unsupported_response_type'],
      ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
      ['no state', { state: undefined }, 'invalid_request'],
      ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
      ['a code_challenge of 42 characters', { code_challenge: 'c'.repeat(42) }, 'invalid_request'],
      ['a code_challenge outside the alphabet', { code_challenge: `${'c'.repeat(42)}+` }, 'invalid_request'],
      ['code_challenge_method S512', { code_challenge_method: 'S512' }, 'invalid_request'],
      ['no scope', { scope: undefined }, 'invalid_scope'],
      ['an unknown scope', { scope: 'tweet.read tweet.everything' }, 'invalid_scope'],
    ]
    for (const [what, change, error] of faults) {
      const check = await checkAuthorizationRequest(tier.domain, { ...valid, ...change })
      assert.equal(check.outcome, 'refused', what)
      if (check.outcome !== 'refused') continue
      const answer = new URL(check.redirectTo)
      assert.equal(`${answer.origin}${answer.pathname}`, REDIRECT, what)
      assert.equal(answer.searchParams.get('error'), error, what)
      assert.equal(answer.searchParams.get('state'), change.state === undefined && 'state' in change ? null : 'state-1', what)
      assert.ok(answer.searchParams.get('error_description'), what)
    }
    assert.equal((await checkAuthorizationRequest(tier.domain, valid)).outcome, 'valid')
  })

  test('without code_challenge_method the challenge is plain (RFC 7636 §4.3); S256 in any case is S256', async () => {
    const client = await oauth2Client(tier.domain)
    const verifier = newVerifier()
    const methodOf = async (parameters: Record<string, string | undefined>) => {
      const check = await checkAuthorizationRequest(tier.domain, parameters)
      return check.outcome === 'valid' ? check.request.challengeMethod : check.outcome
    }
    assert.equal(await methodOf({ ...authorizeParameters(client, verifier, 'tweet.read'), code_challenge: verifier, code_challenge_method: undefined }), 'plain')
    assert.equal(await methodOf({ ...authorizeParameters(client, verifier, 'tweet.read'), code_challenge_method: 's256' }), 'S256')
    assert.equal(await methodOf({ ...authorizeParameters(client, verifier, 'tweet.read'), code_challenge: challengeOf(verifier) }), 'S256')
  })

  test('force_login=true or 1, or prompt=login among others, asks the person to sign in again; otherwise not; a repeated parameter counts once, its first value', async () => {
    const client = await oauth2Client(tier.domain)
    const valid = authorizeParameters(client, newVerifier(), 'tweet.read')
    const forces = async (extra: Record<string, string>) => {
      const check = await checkAuthorizationRequest(tier.domain, { ...valid, ...extra })
      return check.outcome === 'valid' && check.request.forceLogin
    }
    assert.deepEqual(
      await Promise.all(([{ force_login: 'true' }, { force_login: '1' }, { force_login: 'TRUE' }, { prompt: 'consent login' }, {}, { force_login: 'false' }, { prompt: 'consent' }] as Array<Record<string, string>>).map(forces)),
      [true, true, true, true, false, false, false],
    )
    const query = `${new URLSearchParams(valid as Record<string, string>).toString()}&scope=tweet.write&state=other`
    const check = await checkAuthorizationRequest(tier.domain, parametersOfQuery(query))
    assert.ok(check.outcome === 'valid')
    assert.deepEqual([check.request.scopes, check.request.state], [['tweet.read'], 'state-1'])
  })
})
