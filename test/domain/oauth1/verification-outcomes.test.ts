import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { withFailureLog } from '../../../src/domain/console/signature-failures.ts'
import type { DomainDeps } from '../../../src/domain/deps.ts'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import type { OAuth1VerificationResult } from '../../../src/domain/observe.ts'
import { verifySignedRequest, type TokenKind } from '../../../src/domain/oauth1/verify-signed-request.ts'
import type { RequestInput } from '../../../src/domain/request.ts'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import type { AppRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { TIER_URL, assertServiceError, inputOf, openDomainTier, signedInput, type DomainTier } from '../../helpers/domain-tier.ts'
import type { SignOptions } from '../../helpers/oauth1-client.ts'
import { quietObserver } from '../../helpers/recording-observer.ts'

// What an operator and a developer see of each refusal, beside the client's code: the verification
// result the metrics count (oauth1_verifications_total{result}), the clock skew they chart, and the
// reason the developer console's failure log shows (docs/metrics.md, issue 14).

const VERIFY = '/1.1/account/verify_credentials.json'

describe('what verifySignedRequest reports of each outcome (domain tier)', () => {
  let tier: DomainTier
  let app: AppRecord
  let token: { key: string; secret: string }
  let results: Array<[string, OAuth1VerificationResult]>
  let skews: number[]
  let steps: string[] = []
  let deps: DomainDeps

  const observer = quietObserver({
    oauth1Verification: (endpoint, result) => void results.push([endpoint, result]),
    clockSkew: (seconds) => void skews.push(seconds),
    step: (name, work) => {
      steps.push(name)
      return work()
    },
  })
  const signed = (options: Partial<SignOptions> & { app?: AppRecord } = {}, extra: Partial<RequestInput> = {}) => {
    const { app: signer = app, ...rest } = options
    return signedInput(tier, { consumer: { key: signer.consumerKey, secret: signer.consumerSecret }, method: 'GET', path: VERIFY, token, ...rest }, { endpoint: VERIFY, ...extra })
  }
  const verify = (input: RequestInput, kind: TokenKind = 'access') => verifySignedRequest(deps, input, { tokenKind: kind, charge: null })
  /** The app's failure log, once the writes handed over so far have settled. */
  const failures = async (of: AppRecord = app) => {
    await tier.domain.signatureFailures!.settled()
    return tier.domain.signatureFailures!.recent(of.id, tier.clock.nowMs())
  }
  /** The newest entry of the app's failure log. */
  const lastFailure = async (of: AppRecord = app) => (await failures(of))[0]
  /**
   * Runs one refused verification and answers what it reported. The failure log's earlier writes
   * settle first: past 4 pending writes the log drops a failure by design, which on a loaded
   * machine would lose this one and leave an earlier test's failure the newest.
   */
  async function refused(input: RequestInput, code: number, kind: TokenKind = 'access') {
    await tier.domain.signatureFailures!.settled()
    results = []
    skews = []
    let detail: string | undefined
    await assertServiceError(
      verify(input, kind).catch((error: unknown) => {
        detail = (error as { detail?: string }).detail
        throw error
      }),
      code,
    )
    return { results, skews, detail }
  }

  before(async () => {
    tier = await openDomainTier()
    // The failure log subscribed to the observer, as the composition root does (src/composition/root.ts).
    deps = { ...tier.domain, observe: withFailureLog(observer, tier.domain.signatureFailures!, tier.clock) }
    app = await makeApp(tier.domain, { signatureMethods: ['HMAC-SHA1', 'PLAINTEXT'] })
    const person = (await makeUser(tier.domain)).user
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: person.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    token = { key: issued.token, secret: issued.secret }
  })
  after(() => tier.close())

  test('accepted: ok for its endpoint, and its clock skew; the resource-server verifier reports as library', async () => {
    results = []
    skews = []
    await verify(signed({ timestamp: tier.nowSeconds() - 42 }))
    await verify(signed({}, { endpoint: undefined }))
    assert.deepEqual(results, [
      [VERIFY, 'ok'],
      ['library', 'ok'],
    ])
    assert.deepEqual(skews, [42, 0])
  })

  test('the signature check runs as a traced step of its own', async () => {
    steps = []
    await verify(signed())
    assert.deepEqual(steps, ['oauth1.verify_signature'])
  })

  test('no OAuth parameters at all: malformed, and nothing for the failure log', async () => {
    const before = (await failures()).length
    const { results } = await refused({ ...inputOf('GET', `${TIER_URL}${VERIFY}`, {}), endpoint: VERIFY }, 215)
    assert.deepEqual(results, [[VERIFY, 'malformed']])
    assert.equal((await failures()).length, before)
  })

  test('a stale timestamp: timestamp_out_of_bounds, its skew, and the same reason in the failure log', async () => {
    const { results, skews, detail } = await refused(signed({ timestamp: tier.nowSeconds() - 3600 }), 135)
    assert.deepEqual(results, [[VERIFY, 'timestamp_out_of_bounds']])
    assert.deepEqual(skews, [3600])
    assert.equal(detail, 'signed request refused: timestamp')
    const failure = await lastFailure()
    assert.equal(failure?.reason, 'timestamp_out_of_bounds')
    assert.equal(failure?.baseString, undefined, 'only a bad signature shows its base string')
    assert.equal(failure?.method, 'GET')
    assert.equal(failure?.url, `${TIER_URL}${VERIFY}`)
  })

  test('an unknown consumer key: unknown_consumer, and no app gets a failure', async () => {
    const stranger = { ...app, id: 'none', consumerKey: 'unknown-consumer-key', consumerSecret: 'x' }
    const before = (await failures()).length
    const { results, detail } = await refused(signed({ app: stranger, token: undefined }, {}), 32, 'none')
    assert.deepEqual(results, [[VERIFY, 'unknown_consumer']])
    assert.equal(detail, 'signed request refused: unknown consumer key')
    assert.equal((await failures()).length, before)
  })

  test('a suspended app: suspended, and app_suspended in its failure log', async () => {
    const suspended = await makeApp(tier.domain)
    await updateApp(tier.domain, suspended.id, { isSuspended: true })
    const { results, detail } = await refused(signed({ app: suspended, token: undefined }), 416, 'none')
    assert.deepEqual(results, [[VERIFY, 'suspended']])
    assert.equal(detail, 'signed request refused: suspended app')
    assert.equal((await lastFailure(suspended))?.reason, 'app_suspended')
  })

  test('an unknown token: invalid_token, and token_invalid in the failure log', async () => {
    const { results } = await refused(signed({ token: { key: '1-unknown', secret: 'x' } }), 89)
    assert.deepEqual(results, [[VERIFY, 'invalid_token']])
    assert.equal((await lastFailure())?.reason, 'token_invalid')
  })

  test('a wrong secret: bad_signature, and the base string in the failure log', async () => {
    const input = signed({ token: { key: token.key, secret: 'wrong' } })
    const { results, detail } = await refused(input, 32)
    assert.deepEqual(results, [[VERIFY, 'bad_signature']])
    assert.equal(detail, 'signed request refused: signature')
    const failure = await lastFailure()
    assert.equal(failure?.reason, 'bad_signature')
    assert.match(failure?.baseString ?? '', /^GET&https%3A%2F%2Fapi\.example\.test%2F1\.1%2Faccount%2Fverify_credentials\.json&/)
  })

  test('a refused request with a query: the failure log shows the URL with its query, as the client sent it', async () => {
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const wrongSecret = { key: token.key, secret: 'wrong' }
    await refused(signedInput(tier, { consumer, token: wrongSecret, method: 'GET', path: `${VERIFY}?include_email=true&skip_status=1` }, { endpoint: VERIFY }), 32)
    assert.equal((await lastFailure())?.url, `${TIER_URL}${VERIFY}?include_email=true&skip_status=1`)
  })

  test('a method the app does not allow, or PLAINTEXT without TLS: method_not_allowed in both', async () => {
    for (const [input, what] of [
      [signed({ signatureMethod: 'HMAC-SHA256' }), 'HMAC-SHA256'],
      [signed({ signatureMethod: 'PLAINTEXT' }, { isSecure: false }), 'PLAINTEXT over http'],
    ] as const) {
      const { results } = await refused(input, 32)
      assert.deepEqual(results, [[VERIFY, 'method_not_allowed']], what)
      assert.equal((await lastFailure())?.reason, 'method_not_allowed', what)
    }
    // PLAINTEXT over TLS, which the app allows, is accepted.
    await verify(signed({ signatureMethod: 'PLAINTEXT' }))
  })

  test('a replayed request: nonce_reused, and the same reason in the failure log', async () => {
    const input = signed()
    await verify(input)
    const { results, detail } = await refused(input, 32)
    assert.deepEqual(results, [[VERIFY, 'nonce_reused']])
    assert.equal(detail, 'nonce replayed')
    assert.equal((await lastFailure())?.reason, 'nonce_reused')
  })

  test('a refusal for several reasons names each of them to the operator, in the order of the checks', async () => {
    const stranger = { ...app, id: 'none', consumerKey: 'unknown-consumer-key', consumerSecret: 'x' }
    const stale = tier.nowSeconds() - 3600
    // The consumer is unknown: its signature cannot be checked, so it is not named.
    assert.equal((await refused(signed({ app: stranger, token: undefined, timestamp: stale }), 135, 'none')).detail, 'signed request refused: timestamp, unknown consumer key')
    assert.equal(
      (await refused(signed({ token: { key: '1-unknown', secret: 'x' }, timestamp: stale }), 135)).detail,
      'signed request refused: timestamp, token, signature',
    )
  })

  test('a timestamp of another length than 10 digits: untimely, and no clock skew to chart', async () => {
    const { results, skews } = await refused(signed({ timestamp: 123 }), 135)
    assert.deepEqual(results, [[VERIFY, 'timestamp_out_of_bounds']])
    assert.deepEqual(skews, [])
  })

  test('a signature method no one implements: method_not_allowed in both', async () => {
    const input = signed()
    const unknown = { ...input, authorization: input.authorization!.replace('oauth_signature_method="HMAC-SHA1"', 'oauth_signature_method="RSA-SHA1"') }
    assert.notEqual(unknown.authorization, input.authorization)
    const { results, detail } = await refused(unknown, 32)
    assert.deepEqual(results, [[VERIFY, 'method_not_allowed']])
    assert.equal(detail, 'signed request refused: method, signature')
    assert.equal((await lastFailure())?.reason, 'method_not_allowed')
  })

  test('an oauth_body_hash that does not match the body: bad_signature to the metrics, body_hash_mismatch in the failure log', async () => {
    const body = '{"status":"hello"}'
    const sha1 = createHash('sha1').update(body).digest('base64')
    const withHash = (hash: string) => signed({ method: 'POST', oauth: { oauth_body_hash: hash } }, { body, contentType: 'application/json' })
    const mismatch = await refused(withHash(createHash('sha1').update('another body').digest('base64')), 32)
    assert.deepEqual(mismatch.results, [[VERIFY, 'bad_signature']])
    assert.equal(mismatch.detail, 'signed request refused: body hash')
    const failure = await lastFailure()
    assert.equal(failure?.reason, 'body_hash_mismatch')
    assert.equal(failure?.baseString, undefined)
    // The same request with the body's hash is accepted.
    results = []
    await verify(withHash(sha1))
    assert.deepEqual(results, [[VERIFY, 'ok']])
  })
})
