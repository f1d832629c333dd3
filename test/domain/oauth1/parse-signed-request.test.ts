import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import OAuth from 'oauth-1.0a'
import { extraParam } from '../../../src/domain/oauth1/parse-signed-request.ts'
import { verifySignedRequest } from '../../../src/domain/oauth1/verify-signed-request.ts'
import type { RequestInput } from '../../../src/domain/request.ts'
import { ServiceError } from '../../../src/errors/service-error.ts'
import type { AppRecord } from '../../../src/storage/records.ts'
import { makeApp } from '../../helpers/fixtures.ts'
import { TIER_URL, inputOf, openDomainTier, signedInput, type DomainTier } from '../../helpers/domain-tier.ts'
import type { SignOptions } from '../../helpers/oauth1-client.ts'

// Step one of every signed request (parse-signed-request.ts), through the verifier that runs it:
// which parameters must be there and how they must look (400 code 215, with the operator's detail),
// which are read from a form body, and what the verified request hands the use case.

const VERIFY = '/1.1/account/verify_credentials.json'

describe('the parameters of a signed request (domain tier)', () => {
  let tier: DomainTier
  let app: AppRecord
  const consumer = () => ({ key: app.consumerKey, secret: app.consumerSecret })
  const signed = (options: Partial<SignOptions> & { path?: string } = {}, extra: Partial<RequestInput> = {}) =>
    signedInput(tier, { consumer: consumer(), method: 'GET', path: VERIFY, ...options }, extra)
  const verify = (input: RequestInput, required?: readonly string[]) => verifySignedRequest(tier.domain, input, { tokenKind: 'none', charge: null, required })
  /** The refusal's code, client message and operator detail. */
  const refusal = (input: RequestInput, required?: readonly string[]) =>
    verify(input, required).then(
      () => assert.fail('accepted'),
      (error: unknown) => (assert.ok(error instanceof ServiceError, String(error)), { code: error.code, message: error.message, detail: error.detail }),
    )
  const malformed = (detail: string) => ({ code: 215, message: 'Bad Authentication data.', detail })
  /** The same request with one parameter of its Authorization header left out or emptied. */
  const header = (input: RequestInput, name: string, value?: string) => {
    const replaced = input.authorization!.replace(new RegExp(`${name}="[^"]*"(, )?`), value === undefined ? '' : `${name}="${value}"$1`)
    assert.notEqual(replaced, input.authorization)
    return { ...input, authorization: replaced }
  }

  before(async () => {
    tier = await openDomainTier()
    app = await makeApp(tier.domain)
  })
  after(() => tier.close())

  test('each mandatory parameter, absent or empty, is named in the detail', async () => {
    assert.equal((await verify(signed())).app.id, app.id)
    for (const name of ['oauth_consumer_key', 'oauth_signature', 'oauth_signature_method', 'oauth_timestamp', 'oauth_nonce']) {
      assert.deepEqual(await refusal(header(signed(), name)), malformed(`${name} is missing`), `${name} absent`)
      assert.deepEqual(await refusal(header(signed(), name, '')), malformed(`${name} is missing`), `${name} empty`)
    }
  })

  test('an endpoint’s own parameter is required too; a missing oauth_callback is named in the message', async () => {
    const withVerifier = signed({ oauth: { oauth_verifier: 'v' } })
    assert.equal((await verify(withVerifier, ['oauth_verifier'])).app.id, app.id)
    assert.deepEqual(await refusal(signed(), ['oauth_verifier']), malformed('oauth_verifier is missing'))
    assert.deepEqual(await refusal(header(signed({ oauth: { oauth_verifier: 'v' } }), 'oauth_verifier', ''), ['oauth_verifier']), malformed('oauth_verifier is missing'))
    const callback = { code: 215, message: 'Missing required parameter: oauth_callback', detail: undefined }
    assert.deepEqual(await refusal(signed(), ['oauth_callback']), callback)
    assert.deepEqual(await refusal(header(signed({ oauth: { oauth_callback: 'oob' } }), 'oauth_callback', ''), ['oauth_callback']), callback)
    assert.equal((await verify(signed({ oauth: { oauth_callback: 'oob' } }), ['oauth_callback'])).app.id, app.id)
  })

  test('oauth_version may be 1.0, 1.0a or 1.0A, or absent; any other is 215', async () => {
    for (const version of ['1.0', '1.0a', '1.0A']) assert.equal((await verify(signed({ version }))).app.id, app.id, version)
    assert.deepEqual(await refusal(signed({ version: '2.0' })), malformed('bad oauth_version'))
    assert.equal((await verify(signedWithoutVersion())).app.id, app.id)
  })

  test('oauth_nonce: 1 to 255 printable ASCII characters', async () => {
    assert.equal((await verify(signed({ nonce: 'n'.repeat(255) }))).app.id, app.id)
    for (const nonce of ['n'.repeat(256), '\x01nonce', 'nonce\x01']) {
      assert.deepEqual(await refusal(signed({ nonce })), malformed('oauth_nonce must be printable ASCII'), JSON.stringify(nonce))
    }
  })

  test('oauth_timestamp: up to 15 digits, else 215; only 10 digits are ever timely (135)', async () => {
    for (const timestamp of ['x1767225600', '1767225600x', '1'.repeat(16)]) {
      assert.deepEqual(await refusal(signed({ timestamp: timestamp as unknown as number })), malformed('oauth_timestamp must be digits'), timestamp)
    }
    for (const timestamp of ['1'.repeat(15), `0${tier.nowSeconds()}`]) assert.equal((await refusal(signed({ timestamp: timestamp as unknown as number }))).code, 135, timestamp)
  })

  test(`at most 256 signed parameters`, async () => {
    // The five oauth_ parameters signed besides the signature, and the rest in the query.
    const withQuery = (count: number) => signed({ path: `${VERIFY}?${Array.from({ length: count }, (_, i) => `p${i}=${i}`).join('&')}` })
    assert.equal((await verify(withQuery(251))).request.extra.length, 251)
    assert.deepEqual(await refusal(withQuery(252)), malformed('too many parameters'))
  })

  test('the verified request carries the non-oauth parameters, repeats kept; extraParam reads the first of the names given', async () => {
    const { request } = await verify(signed({ path: `${VERIFY}?a=1&b=2&a=3` }))
    assert.deepEqual(request.extra, [
      ['a', '1'],
      ['b', '2'],
      ['a', '3'],
    ])
    assert.equal(extraParam(request, 'b'), '2')
    assert.equal(extraParam(request, 'a'), '1')
    assert.equal(extraParam(request, 'none', 'b', 'a'), '2')
    assert.equal(extraParam(request, 'none'), undefined)
  })

  test('a form body is signed whatever the case, leading spaces and charset of its content type; other bodies are not', async () => {
    const form = { method: 'POST', body: { status: 'café' } }
    for (const contentType of ['application/x-www-form-urlencoded; charset=utf-8', '  Application/X-WWW-Form-Urlencoded']) {
      assert.deepEqual((await verify(signed(form, { contentType }))).request.extra, [['status', 'café']], contentType)
    }
    // A body as bytes is read as UTF-8.
    const bytes = signed(form)
    assert.deepEqual((await verify({ ...bytes, body: Buffer.from(bytes.body as string) })).request.extra, [['status', 'café']])
    // A form content type without a body has no parameters.
    assert.deepEqual((await verify(signed({ method: 'POST' }, { contentType: 'application/x-www-form-urlencoded' }))).request.extra, [])
    // Not a form: the body is no parameters, and not signed.
    assert.deepEqual((await verify(signed({ method: 'POST' }, { contentType: 'text/plain', body: 'status=hello' }))).request.extra, [])
  })

  /** A request signed by oauth-1.0a without oauth_version, which the library always sends otherwise. */
  function signedWithoutVersion(): RequestInput {
    const oauth = new OAuth({ consumer: consumer(), signature_method: 'HMAC-SHA1', hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64') })
    const url = `${TIER_URL}${VERIFY}`
    const data: Record<string, string | number> = {
      oauth_consumer_key: app.consumerKey,
      oauth_nonce: 'no-version-nonce',
      oauth_signature_method: 'HMAC-SHA1',
      oauth_timestamp: tier.nowSeconds(),
    }
    data.oauth_signature = oauth.getSignature({ url, method: 'GET', data: {} }, undefined as unknown as string, data as unknown as OAuth.Authorization)
    const { Authorization } = oauth.toHeader(data as unknown as OAuth.Authorization)
    assert.doesNotMatch(Authorization, /oauth_version/)
    return inputOf('GET', url, { authorization: Authorization })
  }
})
