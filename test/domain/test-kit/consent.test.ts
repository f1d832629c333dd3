import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { updateUser } from '../../../src/domain/admin/people.ts'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import { consentToAuthorizationRequest, consentToRequestToken } from '../../../src/domain/test-kit/consent.ts'
import { E } from '../../../src/errors/catalogue.ts'
import { assertRefusedOnlyWhenBrokenCall, assertServiceError, openDomainTier, type DomainTier } from '../../helpers/domain-tier.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { authorizeParameters, exchange, newVerifier, oauth2Client, REDIRECT } from '../../helpers/oauth2-user.ts'
import { makeRequestToken } from '../../helpers/consent-pages.ts'

// Consent without a browser (src/domain/test-kit/consent.ts): the page's answer, by the page's use
// cases, for a person named by screen name; each refusal beside the same call accepted.

describe('consent without a browser (domain tier)', () => {
  let tier: DomainTier
  before(async () => {
    tier = await openDomainTier()
  })
  after(() => tier.close())

  const auditOf = (appId: string) => tier.domain.stores.audit.list({ appId })
  const statusOf = async (token: string) => (await tier.domain.stores.requestTokens.findByToken(token))?.status

  describe('OAuth 1.0a', () => {
    test('allow: the callback with its own query, oauth_token and a verifier that redeems; audited as the person', async () => {
      const { user } = await makeUser(tier.domain)
      const app = await makeApp(tier.domain, { callbackUrls: ['https://client.example/cb?state=a'] })
      const rt = await makeRequestToken(tier.domain, app)
      const answer = await consentToRequestToken(tier.domain, { oauthToken: rt.token, screenName: `@${user.screenName.toUpperCase()}`, decision: 'allow', address: '198.51.100.9' })
      assert.ok('location' in answer, JSON.stringify(answer))
      const url = new URL(answer.location)
      assert.equal(`${url.origin}${url.pathname}`, 'https://client.example/cb')
      assert.deepEqual([...url.searchParams.keys()], ['state', 'oauth_token', 'oauth_verifier'])
      assert.equal(url.searchParams.get('oauth_token'), rt.token)
      const verifier = url.searchParams.get('oauth_verifier')!
      assert.equal((await tier.domain.stores.requestTokens.redeemVerifier(rt.token, verifier, 3, tier.clock.nowMs())).outcome, 'redeemed')
      const [row] = await auditOf(app.id)
      assert.deepEqual([row?.event, row?.userId, row?.address, row?.detail?.flow], ['consent.granted', user.id, '198.51.100.9', 'authorize'])
    })

    test('allow for oob: a 7-digit PIN that redeems; deny for oob: the cancelled page, the token dead', async () => {
      const { user } = await makeUser(tier.domain)
      const app = await makeApp(tier.domain, { type: 'desktop', callbackUrls: [] })
      const allowed = await makeRequestToken(tier.domain, app, { callback: 'oob' })
      const answer = await consentToRequestToken(tier.domain, { oauthToken: allowed.token, screenName: user.screenName, decision: 'allow' })
      assert.ok('pin' in answer, JSON.stringify(answer))
      assert.match(answer.pin, /^\d{7}$/)
      assert.equal((await tier.domain.stores.requestTokens.redeemVerifier(allowed.token, answer.pin, 3, tier.clock.nowMs())).outcome, 'redeemed')
      const denied = await makeRequestToken(tier.domain, app, { callback: 'oob' })
      assert.deepEqual(await consentToRequestToken(tier.domain, { oauthToken: denied.token, screenName: user.screenName, decision: 'deny' }), { denied: true })
      assert.equal(await statusOf(denied.token), 'denied')
    })

    test('deny: the callback gets denied=<token> and nothing else; the token is dead; audited as the person', async () => {
      const { user } = await makeUser(tier.domain)
      const app = await makeApp(tier.domain)
      const rt = await makeRequestToken(tier.domain, app)
      const answer = await consentToRequestToken(tier.domain, { oauthToken: rt.token, screenName: user.screenName, decision: 'deny' })
      assert.deepEqual(answer, { location: `https://client.example/callback?denied=${rt.token}` })
      assert.equal(await statusOf(rt.token), 'denied')
      const [row] = await auditOf(app.id)
      assert.deepEqual([row?.event, row?.userId], ['consent.denied', user.id])
    })

    test('refused as the page refuses: an unknown token (404), a used one (410), a suspended app (403), a desktop app on authenticate (403)', async () => {
      const { user } = await makeUser(tier.domain)
      const app = await makeApp(tier.domain)
      const call = (oauthToken: string) => consentToRequestToken(tier.domain, { oauthToken, screenName: user.screenName, decision: 'allow' })
      const rt = await makeRequestToken(tier.domain, app)
      await assertRefusedOnlyWhenBrokenCall((variant) => call(variant === 'broken' ? `${rt.token}x` : rt.token), E.requestTokenUnknown.code)
      await assertServiceError(call(rt.token), E.requestTokenUsed.code, 'the same token a second time')

      const suspended = await makeApp(tier.domain, { isSuspended: true })
      const held = await makeRequestToken(tier.domain, suspended)
      await assertRefusedOnlyWhenBrokenCall(async (variant) => {
        if (variant === 'unbroken') await updateApp(tier.domain, suspended.id, { isSuspended: false })
        return call(held.token)
      }, E.appSuspended.code)

      const desktop = await makeApp(tier.domain, { type: 'desktop', callbackUrls: [] })
      const oob = await makeRequestToken(tier.domain, desktop, { callback: 'oob' })
      await assertRefusedOnlyWhenBrokenCall(
        (variant) => consentToRequestToken(tier.domain, { oauthToken: oob.token, screenName: user.screenName, decision: 'allow', flow: variant === 'broken' ? 'authenticate' : 'authorize' }),
        E.desktopAppCannotAuthenticate.code,
      )
    })

    test('an unknown person (404) or a disabled one (400) is refused and the token stays usable', async () => {
      const { user } = await makeUser(tier.domain)
      const rt = await makeRequestToken(tier.domain, await makeApp(tier.domain))
      const call = (screenName: string) => consentToRequestToken(tier.domain, { oauthToken: rt.token, screenName, decision: 'allow' })
      await assertServiceError(call('nobody_here_1'), E.notFound.code)
      await assertServiceError(call('not a name'), E.notFound.code)
      await updateUser(tier.domain, user.id, { disabled: true })
      await assertRefusedOnlyWhenBrokenCall(async (variant) => {
        if (variant === 'unbroken') await updateUser(tier.domain, user.id, { disabled: false })
        return call(user.screenName)
      }, E.invalidParameter.code)
      assert.equal(await statusOf(rt.token), 'authorized')
    })
  })

  describe('OAuth 2.0', () => {
    const query = (client: Awaited<ReturnType<typeof oauth2Client>>, verifier: string, scope = 'tweet.read users.read offline.access') => authorizeParameters(client, verifier, scope)

    test('allow: code and state at the redirect URI, the code exchanged for tokens of the person; audited as the person', async () => {
      const { user } = await makeUser(tier.domain)
      const client = await oauth2Client(tier.domain)
      const verifier = newVerifier()
      const { location } = await consentToAuthorizationRequest(tier.domain, { query: query(client, verifier), screenName: user.screenName, decision: 'allow', address: '198.51.100.10' })
      const url = new URL(location)
      assert.equal(`${url.origin}${url.pathname}`, REDIRECT)
      assert.equal(url.searchParams.get('state'), 'state-1')
      const tokens = await exchange(tier.domain, client, { code: url.searchParams.get('code')!, verifier })
      assert.equal(tokens.scope, 'tweet.read users.read offline.access')
      const rows = await auditOf(client.app.id)
      const granted = rows.find((row) => row.event === 'consent.granted')
      assert.deepEqual([granted?.userId, granted?.address], [user.id, '198.51.100.10'])
    })

    test('deny: access_denied and the state at the redirect URI; audited as the person', async () => {
      const { user } = await makeUser(tier.domain)
      const client = await oauth2Client(tier.domain)
      const answer = await consentToAuthorizationRequest(tier.domain, { query: query(client, newVerifier()), screenName: user.screenName, decision: 'deny' })
      assert.deepEqual(answer, { location: `${REDIRECT}?error=access_denied&state=state-1` })
      const [row] = await auditOf(client.app.id)
      assert.deepEqual([row?.event, row?.userId], ['consent.denied', user.id])
    })

    test('refused as the page refuses: an unknown client, a redirect_uri not registered, a bad scope, a bad challenge, a suspended app, a disabled person', async () => {
      const { user } = await makeUser(tier.domain)
      const client = await oauth2Client(tier.domain, { accessLevel: 'read' })
      const good = query(client, newVerifier(), 'tweet.read')
      const cases: Array<[string, Record<string, string>, number]> = [
        ['unknown client', { ...good, client_id: 'no-such-client' }, E.oauth2UnknownClient.code],
        // Never asked of the store: PostgreSQL refuses a NUL in text (a 500 before findClient).
        ['a client_id with a NUL', { ...good, client_id: `${good.client_id}\u0000` }, E.oauth2UnknownClient.code],
        ['a client_id with a control character', { ...good, client_id: `${good.client_id}\u0007` }, E.oauth2UnknownClient.code],
        ['redirect_uri not registered', { ...good, redirect_uri: `${REDIRECT}/x` }, E.oauth2RedirectNotRegistered.code],
        ['unknown scope', { ...good, scope: 'tweet.read tweet.fly' }, E.oauth2InvalidScope.code],
        ['a write scope for a read app', { ...good, scope: 'tweet.write' }, E.oauth2InvalidScope.code],
        ['a short challenge', { ...good, code_challenge: 'short' }, E.oauth2InvalidRequest.code],
        ['no state', { ...good, state: '' }, E.oauth2InvalidRequest.code],
        ['response_type token', { ...good, response_type: 'token' }, E.oauth2InvalidRequest.code],
      ]
      for (const [name, broken, code] of cases) {
        await assertServiceError(consentToAuthorizationRequest(tier.domain, { query: broken, screenName: user.screenName, decision: 'allow' }), code, name)
      }
      await assertServiceError(
        consentToAuthorizationRequest(tier.domain, { query: { ...good, scope: 'tweet.fly' }, screenName: user.screenName, decision: 'allow' }).catch((error: Error) => {
          assert.equal(error.message, 'the page would send the app invalid_scope: unknown scope: tweet.fly')
          throw error
        }),
        E.oauth2InvalidScope.code,
      )
      await updateApp(tier.domain, client.app.id, { isSuspended: true })
      await assertRefusedOnlyWhenBrokenCall(async (variant) => {
        if (variant === 'unbroken') await updateApp(tier.domain, client.app.id, { isSuspended: false })
        return consentToAuthorizationRequest(tier.domain, { query: good, screenName: user.screenName, decision: 'allow' })
      }, E.appSuspended.code)
      await updateUser(tier.domain, user.id, { disabled: true })
      await assertRefusedOnlyWhenBrokenCall(async (variant) => {
        if (variant === 'unbroken') await updateUser(tier.domain, user.id, { disabled: false })
        return consentToAuthorizationRequest(tier.domain, { query: good, screenName: user.screenName, decision: 'allow' })
      }, E.invalidParameter.code)
      const codes = (await auditOf(client.app.id)).filter((row) => row.event === 'oauth2_code.issued')
      assert.equal(codes.length, 2, 'only the two accepted twins issued a code')
    })
  })
})
