// identifyForwardedCaller (src/domain/forward-auth.ts): who calls an API a proxy protects, by any
// credential, charging no one; an OAuth 1.0a signature over a form body, which the proxy cannot
// forward, is refused with its reason, never accepted unchecked.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { FORM_BODY_REASON, identifyForwardedCaller, UncheckableRequest } from '../../src/domain/forward-auth.ts'
import { issueEveryCredential, type EveryCredential } from '../helpers/fixtures.ts'
import { inputOf, openDomainTier, signedInput, TIER_URL, type DomainTier } from '../helpers/domain-tier.ts'

const FORM = 'application/x-www-form-urlencoded'

describe('identifyForwardedCaller (domain tier)', () => {
  let tier: DomainTier
  let issued: EveryCredential
  before(async () => {
    // A limit of 1: a charged call would be refused the second time.
    tier = await openDomainTier({ settings: { rateLimits: { '/latchkey/forward-auth': 1 } } })
    issued = await issueEveryCredential(tier.domain)
  })
  after(() => tier.close())

  const kindOf = async (input: Parameters<typeof identifyForwardedCaller>[1]) => {
    const { caller } = await identifyForwardedCaller(tier.domain, input)
    return [caller.context, caller.app.id, caller.kind]
  }

  test('each credential its kind, twice over a limit of one: nothing is charged', async () => {
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(await kindOf(signedInput(tier, { consumer: issued.consumer, token: issued.token, method: 'GET', path: `/v1/a?i=${i}` })), ['user', issued.app.id, 'oauth1_user'])
      assert.deepEqual(await kindOf(signedInput(tier, { consumer: issued.consumer, method: 'GET', path: `/v1/b?i=${i}` })), ['app', issued.app.id, 'oauth1_app'])
      assert.deepEqual(await kindOf(inputOf('GET', `${TIER_URL}/v1/c`, { authorization: `Bearer ${issued.bearer}` })), ['app', issued.app.id, 'bearer'])
      assert.deepEqual(await kindOf(inputOf('GET', `${TIER_URL}/v1/d`, { authorization: `Bearer ${issued.userAccessToken}` })), ['user', issued.app.id, 'oauth2_user'])
    }
  })

  test('OAuth 1.0a with a form body is refused, signed in the header or in the body, even with the body at hand', async () => {
    const inHeader = signedInput(tier, { consumer: issued.consumer, token: issued.token, method: 'POST', path: '/v1/notes', body: { text: 'hi' } })
    assert.equal(inHeader.contentType, FORM)
    await assert.rejects(identifyForwardedCaller(tier.domain, inHeader), (error: unknown) => {
      assert.ok(error instanceof UncheckableRequest)
      assert.deepEqual([error.status, error.code, error.detail], [401, 32, FORM_BODY_REASON])
      return true
    })
    const inBody = inputOf('POST', `${TIER_URL}/v1/notes`, { 'content-type': `${FORM}; charset=utf-8` }, 'oauth_consumer_key=x&text=hi')
    await assert.rejects(identifyForwardedCaller(tier.domain, inBody), UncheckableRequest)
  })

  test('a bearer token with a form body passes: there is no signature to cover it', async () => {
    const input = inputOf('POST', `${TIER_URL}/v1/notes`, { authorization: `Bearer ${issued.userAccessToken}`, 'content-type': FORM }, 'text=hi')
    assert.deepEqual(await kindOf(input), ['user', issued.app.id, 'oauth2_user'])
  })
})
