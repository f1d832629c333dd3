import assert from 'node:assert/strict'
import crypto, { createHash } from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
import { after, before, describe, mock, test } from 'node:test'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { verifySignedRequest, type TokenKind } from '../../../src/domain/oauth1/verify-signed-request.ts'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import type { RequestInput } from '../../../src/domain/request.ts'
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

  test('an unknown consumer costs the same HMAC as a known one (no early answer to time)', async () => {
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
    } finally {
      hmacs.mock.restore()
      syncBuiltinESMExports()
    }
  })
})
