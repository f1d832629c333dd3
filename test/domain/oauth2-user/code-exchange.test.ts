import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { issueUserToken } from '../../../src/domain/oauth2-user/token.ts'
import { allowedCode, assertOAuth2Error, challengeOf, type IssuedCode, newVerifier, type OAuth2Client, oauth2Client, oauth2UserTier, REDIRECT, refresh, tokenInput } from '../../helpers/oauth2-user.ts'

// The authorization code grant of POST /2/oauth2/token (RFC 6749 §4.1.3, PKCE: RFC 7636 §4.6) as a
// use case (src/domain/oauth2-user/token.ts) on real storage: what a client that presents a code
// gets back, or which RFC error. A code is spent by its first presentation, right or wrong, so every
// refused presentation's twin is a fresh code presented rightly.

const INVALID_REQUEST = { error: 'invalid_request', status: 400 }
/** A code lives 30 seconds (src/domain/oauth2-user/lifetimes.ts). */
const CODE_TTL_MS = 30_000

describe('the code exchange with PKCE (domain tier)', () => {
  const tier = oauth2UserTier()

  const redeem = async (client: OAuth2Client, issued: IssuedCode, fields: Record<string, string> = {}) => (await tier.redeem(client, issued, fields)).answer

  test('the right verifier gets a bearer access token for two hours, a refresh token with offline.access, and the scopes allowed', async () => {
    const client = await oauth2Client(tier.domain)
    const answer = await redeem(client, await allowedCode(tier.domain, client, tier.person, 'tweet.read users.read offline.access'))
    assert.deepEqual({ ...answer, access_token: typeof answer.access_token, refresh_token: typeof answer.refresh_token }, {
      token_type: 'bearer',
      expires_in: 7200,
      access_token: 'string',
      scope: 'tweet.read users.read offline.access',
      refresh_token: 'string',
    })
    assert.notEqual(answer.access_token, answer.refresh_token)
    assert.equal(await tier.isLive(answer.access_token), true)
  })

  test('without offline.access there is no refresh token', async () => {
    const client = await oauth2Client(tier.domain)
    const answer = await redeem(client, await allowedCode(tier.domain, client, tier.person, 'tweet.read users.read'))
    assert.equal(answer.refresh_token, undefined)
    assert.equal(answer.scope, 'tweet.read users.read')
  })

  test("a verifier that does not answer the S256 challenge (another code's, the challenge itself, one character more or less) is invalid_request; the right one, tokens", async () => {
    const client = await oauth2Client(tier.domain, { type: 'public' })
    const wrongs: Array<[string, (right: string) => string]> = [
      ['another code\'s verifier', () => newVerifier()],
      ['the challenge itself', (right) => challengeOf(right)],
      ['one character more', (right) => `${right}x`],
      ['one character less', (right) => right.slice(0, -1)],
    ]
    for (const [what, wrongFor] of wrongs) {
      const issued = await allowedCode(tier.domain, client, tier.person)
      await assertOAuth2Error(redeem(client, { code: issued.code, verifier: wrongFor(issued.verifier) }), INVALID_REQUEST, what)
    }
    assert.ok((await redeem(client, await allowedCode(tier.domain, client, tier.person))).access_token)
  })

  test('a wrong verifier spends the code: the right one after it gets nothing', async () => {
    const client = await oauth2Client(tier.domain)
    const issued = await allowedCode(tier.domain, client, tier.person)
    await assertOAuth2Error(redeem(client, { code: issued.code, verifier: newVerifier() }), INVALID_REQUEST)
    await assertOAuth2Error(redeem(client, issued), INVALID_REQUEST)
  })

  test('a plain challenge is answered by the verifier itself; a verifier hashed as for S256 is not', async () => {
    const client = await oauth2Client(tier.domain, { type: 'public' })
    const hashed = await allowedCode(tier.domain, client, tier.person, undefined, 'plain')
    await assertOAuth2Error(redeem(client, { code: hashed.code, verifier: challengeOf(hashed.verifier) }), INVALID_REQUEST)
    assert.ok((await redeem(client, await allowedCode(tier.domain, client, tier.person, undefined, 'plain'))).access_token)
  })

  test('a redirect_uri other than the one the code was issued for is invalid_request (the registered one extended too); the same one, tokens', async () => {
    const client = await oauth2Client(tier.domain)
    for (const other of [`${REDIRECT}/`, `${REDIRECT}?x=1`, 'https://client.example/other', '']) {
      await assertOAuth2Error(redeem(client, await allowedCode(tier.domain, client, tier.person), { redirect_uri: other }), INVALID_REQUEST, other)
    }
    assert.ok((await redeem(client, await allowedCode(tier.domain, client, tier.person), { redirect_uri: REDIRECT })).access_token)
  })

  test('a code 30 seconds old is invalid_request; a moment younger, tokens', async () => {
    const client = await oauth2Client(tier.domain)
    const late = await allowedCode(tier.domain, client, tier.person)
    tier.clock.advance(CODE_TTL_MS)
    await assertOAuth2Error(redeem(client, late), INVALID_REQUEST)
    const timely = await allowedCode(tier.domain, client, tier.person)
    tier.clock.advance(CODE_TTL_MS - 1)
    assert.ok((await redeem(client, timely)).access_token)
  })

  test("another client presenting a code (with its verifier) is invalid_request; the code's own client, tokens", async () => {
    const client = await oauth2Client(tier.domain)
    const other = await oauth2Client(tier.domain)
    await assertOAuth2Error(redeem(other, await allowedCode(tier.domain, client, tier.person)), INVALID_REQUEST)
    assert.ok((await redeem(client, await allowedCode(tier.domain, client, tier.person))).access_token)
  })

  test('a code presented again ends the grant its first use made: the access token dies and the refresh token no longer refreshes', async () => {
    const client = await oauth2Client(tier.domain)
    const issued = await allowedCode(tier.domain, client, tier.person)
    const tokens = await redeem(client, issued)
    await assertOAuth2Error(redeem(client, issued), INVALID_REQUEST)
    assert.equal(await tier.isLive(tokens.access_token), false)
    await assertOAuth2Error(refresh(tier.domain, client, tokens.refresh_token), INVALID_REQUEST)
  })

  test('a code no one issued, or without code, redirect_uri or code_verifier, is invalid_request; no grant_type too; another grant_type is unsupported_grant_type', async () => {
    const client = await oauth2Client(tier.domain, { type: 'public' })
    await assertOAuth2Error(redeem(client, { code: 'x'.repeat(64), verifier: newVerifier() }), INVALID_REQUEST, 'unknown code')
    for (const missing of ['code', 'redirect_uri', 'code_verifier']) {
      const issued = await allowedCode(tier.domain, client, tier.person)
      const fields = { grant_type: 'authorization_code', code: issued.code, redirect_uri: REDIRECT, code_verifier: issued.verifier }
      delete fields[missing as keyof typeof fields]
      await assertOAuth2Error(issueUserToken(tier.domain, tokenInput(client, fields)), INVALID_REQUEST, missing)
    }
    const issued = await allowedCode(tier.domain, client, tier.person)
    await assertOAuth2Error(issueUserToken(tier.domain, tokenInput(client, { code: issued.code, redirect_uri: REDIRECT, code_verifier: issued.verifier })), INVALID_REQUEST, 'no grant_type')
    for (const grantType of ['client_credentials', 'password', 'AUTHORIZATION_CODE']) {
      await assertOAuth2Error(issueUserToken(tier.domain, tokenInput(client, { grant_type: grantType, code: issued.code, redirect_uri: REDIRECT, code_verifier: issued.verifier })), { error: 'unsupported_grant_type', status: 400 }, grantType)
    }
    assert.ok((await redeem(client, issued)).access_token, 'the refusals spent nothing: the code still gives tokens')
  })

  test('a confidential client with a wrong secret is invalid_client, and its code is not spent; with its secret, tokens', async () => {
    const client = await oauth2Client(tier.domain)
    const issued = await allowedCode(tier.domain, client, tier.person)
    await assertOAuth2Error(redeem({ ...client, clientSecret: `${client.clientSecret}x` }, issued), { error: 'invalid_client', status: 401 })
    assert.ok((await redeem(client, issued)).access_token)
  })
})
