// The domain's signedRequest event (src/domain/observe.ts), which test mode's request journal reads:
// one per verification, the same verdict the metrics get, values masked as the failure log masks them.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { HIDDEN } from '../../../src/domain/masked-request.ts'
import type { DomainDeps } from '../../../src/domain/deps.ts'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { verifySignedRequest } from '../../../src/domain/oauth1/verify-signed-request.ts'
import type { OAuth1VerificationResult, SignedRequestSeen } from '../../../src/domain/observe.ts'
import type { RequestInput } from '../../../src/domain/request.ts'
import type { AppRecord } from '../../../src/storage/records.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { TIER_URL, inputOf, openDomainTier, signedInput, type DomainTier } from '../../helpers/domain-tier.ts'
import { quietObserver } from '../../helpers/recording-observer.ts'

const VERIFY = '/1.1/account/verify_credentials.json'

describe('the signedRequest event (domain tier)', () => {
  let tier: DomainTier
  let app: AppRecord
  let token: { key: string; secret: string }
  let deps: DomainDeps
  let verdicts: OAuth1VerificationResult[] = []
  let seen: SignedRequestSeen[] = []
  const observer = quietObserver({
    oauth1Verification: (_endpoint, result) => void verdicts.push(result),
    signedRequest: (event) => void seen.push(event),
  })
  const signed = (consumerSecret = app.consumerSecret, nonce?: string) =>
    signedInput(tier, { consumer: { key: app.consumerKey, secret: consumerSecret }, method: 'GET', path: `${VERIFY}?include_entities=true`, token, ...(nonce ? { nonce } : {}) }, { endpoint: VERIFY })
  const verify = async (input: RequestInput) => {
    verdicts = []
    seen = []
    await verifySignedRequest(deps, input, { tokenKind: 'access', charge: null }).catch(() => undefined)
    return seen
  }

  before(async () => {
    tier = await openDomainTier()
    deps = { ...tier.domain, observe: observer }
    app = await makeApp(tier.domain)
    const person = (await makeUser(tier.domain)).user
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: person.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    token = { key: issued.token, secret: issued.secret }
  })
  after(() => tier.close())

  test('accepted, a bad signature, a replay: once each, the metrics\' verdict, the app, and the base string with secrets hidden', async () => {
    const cases: Array<[RequestInput, OAuth1VerificationResult]> = [[signed(), 'ok'], [signed('wrong'), 'bad_signature']]
    const replayed = signed(app.consumerSecret, 'replayed-nonce-0001')
    await verify(replayed)
    cases.push([replayed, 'nonce_reused'])
    for (const [input, result] of cases) {
      const [event, ...more] = await verify(input)
      assert.equal(more.length, 0)
      assert.deepEqual(verdicts, [result])
      assert.equal(event!.result, result)
      assert.deepEqual(event!.app, { id: app.id, consumerKey: app.consumerKey })
      assert.deepEqual(event!.parameters.query, ['include_entities'])
      const parameters = decodeURIComponent(decodeURIComponent(event!.baseString!.split('&')[2]!))
      assert.match(parameters, new RegExp(`oauth_token=${HIDDEN.replace(/[[\]]/g, '\\$&')}`))
      assert.match(parameters, /include_entities=true/)
      assert.ok(!JSON.stringify(event).includes(token.key) && !JSON.stringify(event).includes(token.secret))
    }
  })

  test('a request that does not parse: malformed, its parameters by place, no app and no base string', async () => {
    const [event] = await verify({ ...inputOf('GET', `${TIER_URL}${VERIFY}?a=1`, { authorization: 'OAuth oauth_consumer_key="x"' }), endpoint: VERIFY })
    assert.deepEqual(event, { result: 'malformed', app: undefined, parameters: { header: ['oauth_consumer_key'], query: ['a'], body: [] }, baseString: undefined })
  })
})
