import assert from 'node:assert/strict'
import crypto, { createHash } from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
import { after, before, describe, mock, test } from 'node:test'
import { revokeAuthorization } from '../../../src/domain/admin/people.ts'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { issueRequestToken } from '../../../src/domain/oauth1/request-token.ts'
import { verifySignedRequest, type TokenKind } from '../../../src/domain/oauth1/verify-signed-request.ts'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import type { RequestInput } from '../../../src/domain/request.ts'
import { ServiceError } from '../../../src/errors/service-error.ts'
import type { AppRecord, UserRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { assertRefusedOnlyWhenBrokenCall, assertServiceError, openDomainTier, signedInput, type DomainTier } from '../../helpers/domain-tier.ts'
import type { SignOptions } from '../../helpers/oauth1-client.ts'

const VERIFY = '/1.1/account/verify_credentials.json'

describe('verifySignedRequest (domain tier)', () => {
  let tier: DomainTier
  let app: AppRecord
  let person: UserRecord
  let token: { key: string; secret: string }
  const consumer = () => ({ key: app.consumerKey, secret: app.consumerSecret })
  const verify = (kind: TokenKind, options: Partial<SignOptions> & { path?: string } = {}, isSecure = true, extra: Partial<RequestInput> = {}) =>
    verifySignedRequest(tier.domain, signedInput(tier, { consumer: consumer(), method: 'GET', path: VERIFY, ...options }, { isSecure, ...extra }), { tokenKind: kind, charge: null })

  before(async () => {
    tier = await openDomainTier()
    app = await makeApp(tier.domain)
    person = (await makeUser(tier.domain)).user
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: person.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    token = { key: issued.token, secret: issued.secret }
  })
  after(() => tier.close())

  test('a request signed with the access token names the app and the person it acts for', async () => {
    const verified = await verify('access', { token })
    assert.equal(verified.app.id, app.id)
    assert.equal(verified.user?.id, person.id)
    assert.equal(verified.token?.token, token.key)
  })

  test('a wrong consumer secret gets 32', async () => {
    await assertRefusedOnlyWhenBrokenCall((v) => verify('access', { token, consumer: { key: app.consumerKey, secret: v === 'broken' ? 'wrong' : app.consumerSecret } }), 32)
  })

  test('a wrong token secret gets 32', async () => {
    await assertRefusedOnlyWhenBrokenCall((v) => verify('access', { token: { key: token.key, secret: v === 'broken' ? 'wrong' : token.secret } }), 32)
  })

  test('an unknown consumer key gets 32', async () => {
    await assertRefusedOnlyWhenBrokenCall((v) => verify('none', { consumer: v === 'broken' ? { key: 'unknown-consumer', secret: 'x' } : consumer() }), 32)
  })

  test('an unknown access token gets 89; none where one is required gets 89', async () => {
    await assertRefusedOnlyWhenBrokenCall((v) => verify('access', { token: v === 'broken' ? { key: '1-unknown', secret: 'x' } : token }), 89)
    await assertRefusedOnlyWhenBrokenCall((v) => verify(v === 'broken' ? 'access' : 'none'), 89)
    await assertServiceError(verify('request'), 89)
  })

  test('the timestamp may be off by the skew (300 s) either way, not a second more: 135', async () => {
    for (const offset of [300, -300]) assert.equal((await verify('none', { timestamp: tier.nowSeconds() + offset })).app.id, app.id)
    for (const offset of [301, -301]) await assertServiceError(verify('none', { timestamp: tier.nowSeconds() + offset }), 135)
    // A timestamp of another length than 10 digits is never timely.
    await assertServiceError(verify('none', { timestamp: 123 }), 135)
  })

  test('a suspended app gets 416, a stale timestamp to it 135 (135 comes first)', async () => {
    const suspended = await makeApp(tier.domain)
    const signedBy = { consumer: { key: suspended.consumerKey, secret: suspended.consumerSecret } }
    await assertServiceError(verify('none', { ...signedBy, timestamp: tier.nowSeconds() - 3600 }), 135)
    await updateApp(tier.domain, suspended.id, { isSuspended: true })
    await assertServiceError(verify('none', { ...signedBy, timestamp: tier.nowSeconds() - 3600 }), 135)
    await assertServiceError(verify('none', signedBy), 416)
    // 416 before 89 and 32.
    await assertServiceError(verify('access', { consumer: { key: suspended.consumerKey, secret: 'wrong' }, token: { key: '1-x', secret: 'y' } }), 416)
  })

  test('89 comes before 32', async () => {
    await assertServiceError(verify('access', { consumer: { key: app.consumerKey, secret: 'wrong' }, token: { key: '1-x', secret: 'y' } }), 89)
  })

  test("another app's access token gets 89", async () => {
    const other = await makeApp(tier.domain)
    await assertRefusedOnlyWhenBrokenCall((v) => verify('access', { consumer: v === 'broken' ? { key: other.consumerKey, secret: other.consumerSecret } : consumer(), token }), 89)
  })

  test('a nonce is spent once: the replay gets 32; another app may use the same nonce', async () => {
    const options = { nonce: 'once-only-nonce', token }
    await verify('access', options)
    await assertServiceError(verify('access', options), 32)
    const other = await makeApp(tier.domain)
    assert.equal((await verify('none', { nonce: 'once-only-nonce', consumer: { key: other.consumerKey, secret: other.consumerSecret } })).app.id, other.id)
  })

  test('a refused request spends no nonce', async () => {
    await assertServiceError(verify('none', { nonce: 'kept-nonce', consumer: { key: app.consumerKey, secret: 'wrong' } }), 32)
    assert.equal((await verify('none', { nonce: 'kept-nonce' })).app.id, app.id)
  })

  test('a method the app does not allow gets 32; HMAC-SHA256 once allowed is accepted', async () => {
    const sha = await makeApp(tier.domain)
    const signedBy = { consumer: { key: sha.consumerKey, secret: sha.consumerSecret }, signatureMethod: 'HMAC-SHA256' as const }
    await assertServiceError(verify('none', signedBy), 32)
    await updateApp(tier.domain, sha.id, { signatureMethods: ['HMAC-SHA1', 'HMAC-SHA256'] })
    assert.equal((await verify('none', signedBy)).app.id, sha.id)
  })

  test('PLAINTEXT is accepted only over TLS, and only when the app allows it', async () => {
    const plain = await makeApp(tier.domain, { signatureMethods: ['PLAINTEXT'] })
    const signedBy = { consumer: { key: plain.consumerKey, secret: plain.consumerSecret }, signatureMethod: 'PLAINTEXT' as const }
    await assertRefusedOnlyWhenBrokenCall((v) => verify('none', signedBy, v === 'unbroken'), 32)
    await assertServiceError(verify('none', { ...signedBy, consumer: consumer() }), 32)
  })

  test('oauth_body_hash must be the base64 SHA-1 of a body that is not form-encoded; absent, the body is not checked', async () => {
    const json = '{"a":"b"}'
    const hashOf = (text: string, algorithm = 'sha1') => createHash(algorithm).update(text).digest('base64')
    const withBody = (hash: string | undefined, body: string | undefined) =>
      verify('none', hash === undefined ? {} : { oauth: { oauth_body_hash: hash } }, true, { contentType: 'application/json', body })
    await assertRefusedOnlyWhenBrokenCall((v) => withBody(hashOf(json), v === 'broken' ? '{"a":"c"}' : json), 32)
    await assertRefusedOnlyWhenBrokenCall((v) => withBody(v === 'broken' ? hashOf(json, 'sha256') : hashOf(json), json), 32)
    // No body is the empty body.
    await assertRefusedOnlyWhenBrokenCall((v) => withBody(hashOf(v === 'broken' ? json : ''), undefined), 32)
    assert.equal((await withBody(undefined, '{"a":"c"}')).app.id, app.id)
  })

  test('with HMAC-SHA256, oauth_body_hash is the SHA-256 of the body', async () => {
    const sha = await makeApp(tier.domain, { signatureMethods: ['HMAC-SHA256'] })
    const json = '{"x":1}'
    const signedBy = (algorithm: string) => ({
      consumer: { key: sha.consumerKey, secret: sha.consumerSecret },
      signatureMethod: 'HMAC-SHA256' as const,
      oauth: { oauth_body_hash: createHash(algorithm).update(json).digest('base64') },
    })
    await assertRefusedOnlyWhenBrokenCall((v) => verify('none', signedBy(v === 'broken' ? 'sha1' : 'sha256'), true, { contentType: 'application/json', body: json }), 32)
  })

  test('a form-encoded body is signed with the parameters, so an oauth_body_hash beside it is not checked', async () => {
    const signed = (hash: string) => signedInput(tier, { consumer: consumer(), method: 'POST', path: VERIFY, body: { status: 'hi' }, oauth: { oauth_body_hash: hash } })
    assert.equal((await verifySignedRequest(tier.domain, signed('not-the-hash'), { tokenKind: 'none', charge: null })).app.id, app.id)
  })

  test('an unknown consumer or signature method costs the same HMAC as a known one (no early answer to time)', async () => {
    const hmacs = mock.method(crypto, 'createHmac')
    syncBuiltinESMExports()
    try {
      const count = async (signedBy: { key: string; secret: string }) => {
        hmacs.mock.resetCalls()
        await assertServiceError(verify('none', { consumer: signedBy }), 32)
        return hmacs.mock.calls.filter((call) => call.arguments[0] === 'sha1').length
      }
      const known = await count({ key: app.consumerKey, secret: 'wrong' })
      const unknown = await count({ key: 'unknown-consumer', secret: 'wrong' })
      assert.ok(known >= 1)
      assert.equal(unknown, known)
      // A signature method no one implements is checked as HMAC-SHA1 all the same.
      hmacs.mock.resetCalls()
      const input = signedInput(tier, { consumer: { key: app.consumerKey, secret: 'wrong' }, method: 'GET', path: VERIFY })
      const unknownMethod = { ...input, authorization: input.authorization!.replace('oauth_signature_method="HMAC-SHA1"', 'oauth_signature_method="RSA-SHA1"') }
      await assertServiceError(verifySignedRequest(tier.domain, unknownMethod, { tokenKind: 'none', charge: null }), 32)
      assert.equal(hmacs.mock.calls.filter((call) => call.arguments[0] === 'sha1').length, known)
    } finally {
      hmacs.mock.restore()
      syncBuiltinESMExports()
    }
  })
})

describe('verifySignedRequest: which tokens are live (domain tier)', () => {
  let tier: DomainTier
  let app: AppRecord
  let person: UserRecord
  const signerOf = (of: AppRecord) => ({ key: of.consumerKey, secret: of.consumerSecret })
  const verify = <K extends TokenKind>(kind: K, options: Partial<SignOptions> = {}) =>
    verifySignedRequest(tier.domain, signedInput(tier, { consumer: signerOf(app), method: 'GET', path: VERIFY, ...options }), { tokenKind: kind, charge: null })
  const refusal = async (work: Promise<unknown>) =>
    work.then(
      () => assert.fail('accepted'),
      (error: unknown) => (assert.ok(error instanceof ServiceError), { code: error.code, detail: error.detail }),
    )
  /** A request token of `app` as the use case issues it (status issued, 900 s to live). */
  const requestToken = async (of: AppRecord = app) => {
    const { requestToken: record } = await issueRequestToken(tier.domain, signedInput(tier, { consumer: signerOf(of), path: '/oauth/request_token', oauth: { oauth_callback: 'oob' } }))
    return { key: record.token, secret: record.secret, record }
  }

  before(async () => {
    tier = await openDomainTier()
    app = await makeApp(tier.domain)
    person = (await makeUser(tier.domain)).user
  })
  after(() => tier.close())

  test('access-or-none: an access token names its person; without one the call is the app’s alone', async () => {
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: person.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    const withToken = await verify('access-or-none', { token: { key: issued.token, secret: issued.secret } })
    assert.equal(withToken.user?.id, person.id)
    assert.equal(withToken.token?.token, issued.token)
    const appOnly = await verify('access-or-none')
    assert.equal(appOnly.app.id, app.id)
    assert.equal(appOnly.user, undefined)
    assert.equal(appOnly.token, undefined)
    // A named token must still be good.
    await assertServiceError(verify('access-or-none', { token: { key: issued.token, secret: 'wrong' } }), 32)
    // An unknown token's secret is a stand-in, so its signature fails too: the operator sees both.
    assert.deepEqual(await refusal(verify('access-or-none', { token: { key: '1-unknown', secret: 'x' } })), {
      code: 89,
      detail: 'signed request refused: token, signature',
    })
  })

  test('a revoked access token gets 89', async () => {
    const holder = (await makeUser(tier.domain)).user
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: holder.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    const signed = { token: { key: issued.token, secret: issued.secret } }
    assert.equal((await verify('access', signed)).user?.id, holder.id)
    await revokeAuthorization(tier.domain, holder.id, app.id)
    assert.deepEqual(await refusal(verify('access', signed)), { code: 89, detail: 'signed request refused: token' })
  })

  test('an unknown consumer key with a live access token gets 89: the token is no stranger’s', async () => {
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: person.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    const token = { key: issued.token, secret: issued.secret }
    for (const kind of ['access', 'access-or-none'] as const) {
      assert.deepEqual(await refusal(verify(kind, { token, consumer: { key: 'unknown-consumer', secret: app.consumerSecret } })), {
        code: 89,
        detail: 'signed request refused: unknown consumer key, token',
      })
    }
  })

  test('a request token issued or approved, unexpired and of this app, is accepted; the token comes back', async () => {
    const issued = await requestToken()
    const verified = await verify('request', { token: issued })
    assert.equal(verified.token.token, issued.key)
    assert.equal(verified.user, undefined)
    assert.equal(await tier.domain.stores.requestTokens.authorize(issued.key, person.id, 'v', tier.clock.nowMs()), true)
    assert.equal((await verify('request', { token: issued })).token.status, 'authorized')
  })

  test('a request token denied or exchanged gets 89', async () => {
    const denied = await requestToken()
    assert.equal(await tier.domain.stores.requestTokens.deny(denied.key, tier.clock.nowMs()), true)
    assert.deepEqual(await refusal(verify('request', { token: denied })), { code: 89, detail: 'signed request refused: token' })
    const used = await requestToken()
    assert.equal(await tier.domain.stores.requestTokens.authorize(used.key, person.id, 'v', tier.clock.nowMs()), true)
    assert.equal((await tier.domain.stores.requestTokens.redeemVerifier(used.key, 'v', 3, tier.clock.nowMs())).outcome, 'redeemed')
    await assertServiceError(verify('request', { token: used }), 89)
  })

  test('a request token lives until its expiry, not at it: 89 from then on', async () => {
    const issued = await requestToken()
    const untilExpiry = issued.record.expiresAtMs - tier.clock.nowMs()
    tier.clock.advance(untilExpiry - 1)
    try {
      assert.equal((await verify('request', { token: issued })).token.token, issued.key)
      tier.clock.advance(1)
      await assertServiceError(verify('request', { token: issued }), 89)
    } finally {
      tier.clock.advance(-untilExpiry)
    }
  })

  test('another app’s request token, an unknown one, or a real one with an unknown consumer key: 89', async () => {
    const theirs = await requestToken(await makeApp(tier.domain))
    // Signed with the right secrets, so only the token fails.
    assert.deepEqual(await refusal(verify('request', { token: theirs })), { code: 89, detail: 'signed request refused: token' })
    assert.deepEqual(await refusal(verify('request', { token: { key: 'unknown-request-token', secret: 'x' } })), {
      code: 89,
      detail: 'signed request refused: token, signature',
    })
    const mine = await requestToken()
    assert.deepEqual(await refusal(verify('request', { token: mine, consumer: { key: 'unknown-consumer', secret: 'x' } })), {
      code: 89,
      detail: 'signed request refused: unknown consumer key, token',
    })
  })

  test('HMAC-SHA1 needs no TLS (only PLAINTEXT does)', async () => {
    const verified = await verifySignedRequest(tier.domain, signedInput(tier, { consumer: signerOf(app), method: 'GET', path: VERIFY }, { isSecure: false }), {
      tokenKind: 'none',
      charge: null,
    })
    assert.equal(verified.app.id, app.id)
  })
})
