// Issue 29 (1): the signature-failure log keeps no value that authenticates. A PLAINTEXT signature
// in a query string is the consumer secret and the token secret; a base string holds the token and
// the verifier (the PIN). The log keeps the URL and the base string with those values hidden, and
// every other part a developer needs to compare with their own. The storage tier runs this file on
// PostgreSQL too: what is checked is what the table holds.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { HIDDEN, maskedBaseString, maskedUrl, parameterSources } from '../../src/domain/masked-request.ts'
import { issueOrReuseAccessToken } from '../../src/domain/oauth1/issue-access-token.ts'
import { verifySignedRequest } from '../../src/domain/oauth1/verify-signed-request.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { TIER_URL, assertServiceError, inputOf, openDomainTier, signedInput, type DomainTier } from '../helpers/domain-tier.ts'

const VERIFY = '/1.1/account/verify_credentials.json'
const hiddenOnce = encodeURIComponent(HIDDEN)
const hiddenTwice = encodeURIComponent(hiddenOnce)

describe('what the signature-failure log keeps of a refused request', () => {
  let tier: DomainTier
  let app: AppRecord
  let token: { key: string; secret: string }
  before(async () => {
    tier = await openDomainTier()
    app = await makeApp(tier.domain, { signatureMethods: ['HMAC-SHA1', 'PLAINTEXT'] })
    const person = (await makeUser(tier.domain)).user
    const issued = await issueOrReuseAccessToken(tier.domain, { appId: app.id, userId: person.id, accessLevel: app.accessLevel }, { via: 'owner_token' })
    token = { key: issued.token, secret: issued.secret }
  })
  after(() => tier.close())

  const verify = (input: ReturnType<typeof inputOf>) => verifySignedRequest(tier.domain, { ...input, endpoint: VERIFY }, { tokenKind: 'access', charge: null })
  const lastFailure = async () => {
    await tier.domain.signatureFailures!.settled()
    return (await tier.domain.signatureFailures!.recent(app.id, tier.clock.nowMs()))[0]
  }
  /** A PLAINTEXT request signed in the query string, as some clients send it. */
  const plaintextInQuery = (timestamp: number, nonce: string) =>
    inputOf(
      'GET',
      `${TIER_URL}${VERIFY}?oauth_consumer_key=${app.consumerKey}&oauth_token=${token.key}&oauth_signature_method=PLAINTEXT&oauth_timestamp=${timestamp}` +
        `&oauth_nonce=${nonce}&oauth_version=1.0&oauth_signature=${app.consumerSecret}%26${token.secret}&include_email=true`,
      {},
    )

  test('a PLAINTEXT request in the query string, refused: its URL keeps neither the secrets nor the token; accepted when timely (the twin)', async () => {
    await assertServiceError(verify(plaintextInQuery(1000, 'stale')), 135)
    const failure = await lastFailure()
    assert.equal(failure?.reason, 'timestamp_out_of_bounds')
    for (const secret of [app.consumerSecret, token.secret, token.key]) assert.ok(!failure!.url.includes(secret), `the URL holds ${secret}: ${failure!.url}`)
    assert.equal(
      failure?.url,
      `${TIER_URL}${VERIFY}?oauth_consumer_key=${app.consumerKey}&oauth_token=${hiddenOnce}&oauth_signature_method=PLAINTEXT&oauth_timestamp=1000` +
        `&oauth_nonce=stale&oauth_version=1.0&oauth_signature=${hiddenOnce}&include_email=true`,
    )
    assert.equal(
      failure?.parameters,
      'query: oauth_consumer_key, oauth_token, oauth_signature_method, oauth_timestamp, oauth_nonce, oauth_version, oauth_signature, include_email',
      'where each parameter came from, by name only',
    )
    await verify(plaintextInQuery(tier.nowSeconds(), 'timely'))
  })

  test('a bad signature: the base string keeps its method, URL, names and public values, never the token or the verifier', async () => {
    const consumer = { key: app.consumerKey, secret: app.consumerSecret }
    const input = signedInput(tier, { consumer, token: { key: token.key, secret: 'wrong' }, method: 'GET', path: `${VERIFY}?skip_status=1`, oauth: { oauth_verifier: '7654321' } })
    await assertServiceError(verify(input), 32)
    const failure = await lastFailure()
    assert.equal(failure?.reason, 'bad_signature')
    const base = failure!.baseString!
    for (const secret of [token.key, '7654321', app.consumerSecret]) assert.ok(!base.includes(secret), `the base string holds ${secret}: ${base}`)
    assert.match(base, /^GET&https%3A%2F%2Fapi\.example\.test%2F1\.1%2Faccount%2Fverify_credentials\.json&/)
    for (const kept of [`oauth_consumer_key%3D${app.consumerKey}`, 'oauth_signature_method%3DHMAC-SHA1', 'skip_status%3D1']) assert.ok(base.includes(kept), `${kept} in ${base}`)
    for (const hidden of ['oauth_token', 'oauth_verifier']) assert.ok(base.includes(`${hidden}%3D${hiddenTwice}`), `${hidden} hidden in ${base}`)
  })
})

describe('parameterSources', () => {
  test('names each parameter once under where it came from, never a value; a control character in a name is replaced; a non-form body is not read', () => {
    const input = {
      ...inputOf('POST', 'https://api.example.test/x?a=1&a=2&status=s3cret', {}),
      authorization: 'OAuth oauth_consumer_key="ck", oauth_signature="sig%26secret"',
      contentType: 'application/x-www-form-urlencoded',
      body: 'b%00c=1&oauth_token=tok',
    }
    assert.equal(parameterSources(input), 'header: oauth_consumer_key, oauth_signature; query: a, status; body: b\ufffdc, oauth_token')
    assert.equal(parameterSources({ ...input, authorization: undefined, query: '', contentType: 'application/json', body: '{"a":1}' }), '')
  })
})

describe('maskedUrl and maskedBaseString', () => {
  test('hide every value but those of the listed harmless parameters, whatever a name says, and keep every name as it was', () => {
    const url = maskedUrl({ scheme: 'https', host: 'api.example.test', path: '/x', query: 'a=1&access_token=AAA&Client_Secret=s&x_auth_password=p&oauth%5Fverifier=123&flag&b=%20' })
    assert.equal(url, `https://api.example.test/x?a=${hiddenOnce}&access_token=${hiddenOnce}&Client_Secret=${hiddenOnce}&x_auth_password=${hiddenOnce}&oauth%5Fverifier=${hiddenOnce}&flag&b=${hiddenOnce}`)
    assert.equal(maskedUrl({ scheme: 'http', host: 'h', path: '/p', query: '' }), 'http://h/p')
    const methodKept = maskedUrl({ scheme: 'http', host: 'h', path: '/p', query: 'oauth_signature_method=HMAC-SHA1&oauth_signature=abc&oauth_token_secret=s&pin=1234567' })
    assert.equal(methodKept, `http://h/p?oauth_signature_method=HMAC-SHA1&oauth_signature=${hiddenOnce}&oauth_token_secret=${hiddenOnce}&pin=${hiddenOnce}`)
    const base = 'POST&https%3A%2F%2Fh%2Fp&a%3D1%26oauth_nonce%3Dn%26oauth_token%3D123-abc%26oauth_verifier%3D7654321%26z%3D%2525'
    assert.equal(maskedBaseString(base), `POST&https%3A%2F%2Fh%2Fp&a%3D${hiddenTwice}%26oauth_nonce%3Dn%26oauth_token%3D${hiddenTwice}%26oauth_verifier%3D${hiddenTwice}%26z%3D${hiddenTwice}`)
  })

  test('names no deny-list would catch keep no value: code, api_key, secret_key, pwd, passphrase, otp, credential, session, auth, a callback', () => {
    const leaky = ['code', 'api_key', 'secret_key', 'pwd', 'passphrase', 'otp', 'credential', 'session', 'auth', 'oauth_callback', 'OAUTH_NONCE']
    const query = leaky.map((name, i) => `${name}=v${i}lue`).join('&')
    const expected = leaky.map((name) => `${name}=${hiddenOnce}`).join('&')
    assert.equal(maskedUrl({ scheme: 'https', host: 'h', path: '/p', query }), `https://h/p?${expected}`)
    const base = `GET&https%3A%2F%2Fh%2Fp&${encodeURIComponent(query)}`
    assert.equal(maskedBaseString(base), `GET&https%3A%2F%2Fh%2Fp&${encodeURIComponent(leaky.map((name) => `${name}=${hiddenOnce}`).join('&'))}`)
  })

  test('the harmless parameters keep their values, in the URL and in the base string, however their names are encoded', () => {
    const query = 'oauth_consumer_key=ck&oauth%5Fnonce=n1&oauth_timestamp=1700000000&oauth_signature_method=HMAC-SHA1&oauth_version=1.0' +
      '&x_auth_access_type=read&include_entities=false&skip_status=1&include_email=true&resources=account%2Capplication'
    assert.equal(maskedUrl({ scheme: 'https', host: 'h', path: '/p', query }), `https://h/p?${query}`)
    const base = `GET&https%3A%2F%2Fh%2Fp&${encodeURIComponent(decodeURIComponent(query.replace('%5F', '_')))}`
    assert.equal(maskedBaseString(base), base)
  })
})
