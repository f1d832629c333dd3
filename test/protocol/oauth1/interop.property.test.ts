// Interop: requests signed by two independent client libraries (npm `oauth-1.0a` and `oauth`) must
// pass our verifier, and a one-character change must not. Generators are narrowed only where a
// library is known not to handle a case; each narrowing says which library and why.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import querystring from 'node:querystring'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import oauthPkg from 'oauth'
import OAuth1a from 'oauth-1.0a'
import { ServiceError } from '../../../src/errors/service-error.ts'
import { parseOAuthHeader } from '../../../src/protocol/oauth1/auth-header.ts'
import { parseFormEncoded } from '../../../src/protocol/form.ts'
import { collectParameters } from '../../../src/protocol/oauth1/parameters.ts'
import {
  SIGNATURE_METHODS,
  baseStringUri,
  buildBaseString,
  isSignatureMethod,
  verifySignature,
} from '../../../src/protocol/oauth1/signature.ts'
import { propertyRuns } from '../../helpers/property-runs.ts'
import { anyString } from '../../helpers/any-string.ts'

type Pairs = Array<[string, string]>
/** What the server receives: the Host header, the request-target, the Authorization header, the body. */
interface Wire {
  method: string
  scheme: string
  host: string
  target: string
  authorization?: string
  body: string
}
interface Sources {
  header: Pairs | undefined
  query: Pairs
  body: Pairs
}
interface Secrets {
  consumerSecret: string
  tokenSecret: string
}

function parseWire(wire: Wire): Sources {
  const q = wire.target.indexOf('?')
  return {
    header: parseOAuthHeader(wire.authorization),
    query: q === -1 ? [] : parseFormEncoded(wire.target.slice(q + 1)),
    body: parseFormEncoded(wire.body),
  }
}

/** Our verifier as the domain layer will run it; a 215 on the way counts as a rejection. */
function accepts(wire: Wire, sources: Sources, secrets: Secrets): boolean {
  try {
    const { protocol, signed } = collectParameters(sources)
    const method = protocol.get('oauth_signature_method') ?? ''
    if (!isSignatureMethod(method)) return false
    const uri = baseStringUri({ scheme: wire.scheme, host: wire.host, path: wire.target })
    const received = protocol.get('oauth_signature') ?? ''
    const base = buildBaseString(wire.method, uri, signed)
    return verifySignature(method, base, secrets.consumerSecret, secrets.tokenSecret, received)
  } catch (error) {
    if (error instanceof ServiceError && error.code === 215) return false
    throw error
  }
}

/** A copy of `sources` with one character (code point) changed in the signature or in one parameter. */
function tamper(sources: Sources, ofSignature: boolean, pick: number, at: number): Sources {
  const copy = (pairs: Pairs): Pairs => pairs.map(([name, value]) => [name, value])
  const result = {
    header: sources.header && copy(sources.header),
    query: copy(sources.query),
    body: copy(sources.body),
  }
  const candidates = [...(result.header ?? []), ...result.query, ...result.body].filter(
    ([name]) => (name === 'oauth_signature') === ofSignature,
  )
  const pair = candidates[pick % candidates.length]
  assert.ok(pair, 'there is always an oauth_signature and an oauth_consumer_key')
  const chars = [...pair[1]]
  const k = at % Math.max(chars.length, 1)
  if (chars.length === 0) chars.push('x')
  else chars[k] = chars[k] === 'x' ? 'y' : 'x'
  pair[1] = chars.join('')
  return result
}

function assertAcceptedUntilTampered(
  wire: Wire,
  secrets: Secrets,
  c: { pick: number; at: number; signatureMethod: string },
): void {
  const sources = parseWire(wire)
  assert.equal(accepts(wire, sources, secrets), true, JSON.stringify(wire))
  assert.equal(accepts(wire, tamper(sources, true, c.pick, c.at), secrets), false)
  // PLAINTEXT signs no parameters (RFC 5849 §3.4.4): only the HMAC methods must notice this change.
  if (c.signatureMethod !== 'PLAINTEXT') {
    assert.equal(accepts(wire, tamper(sources, false, c.pick, c.at), secrets), false)
  }
}

/** The object form both libraries take: a repeated name maps to an array of its values. */
function toObject(pairs: Pairs): Record<string, string | string[]> {
  const data: Record<string, string | string[]> = {}
  for (const [name, value] of pairs) {
    const prev = data[name]
    data[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value]
  }
  return data
}

// Both libraries keep parameters in plain objects: names such as `constructor` or `__proto__` break them.
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype))
const SPECIAL = [...':/?#[]@!$&\'()*+,;=%"<>\\^`{|} ~-._aZ0', 'é', '😀', '中', '\u0000', '\u007F', '\u00A0', '\uFEFF']
const text = fc.oneof(
  anyString({ maxLength: 12 }),
  fc.string({ unit: fc.constantFrom(...SPECIAL), maxLength: 12 }),
)
// A small pool of fixed names makes repeated non-oauth names common.
const anyName = fc
  .oneof(fc.constantFrom('a', 'a b', 'é', '', '!', 'status'), text)
  .filter((name) => !name.startsWith('oauth_') && !PROTOTYPE_NAMES.has(name))
const unreservedName = fc.oneof(
  fc.constantFrom('a', 'q', 'include_entities', ''),
  fc.string({ unit: fc.constantFrom(...'abcXYZ019-._~'), maxLength: 8 }),
)
const isUnreserved = (name: string): boolean => /^[A-Za-z0-9\-._~]*$/.test(name)
// Path segments in wire form: escapes (lower-case hex too) and the raw sub-delimiters a path may hold.
const PATH_UNITS = [...'abcXYZ019-._~!*();=:@$,+&\'', '%20', '%2F', '%25', '%C3%A9', '%c3%a9', '%E4%B8%AD']
const path = fc
  .array(fc.string({ unit: fc.constantFrom(...PATH_UNITS), maxLength: 6 }), { maxLength: 4 })
  .map((segments) => `/${segments.join('/')}`)
const common = {
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
  scheme: fc.constantFrom('http', 'https'),
  port: fc.option(fc.oneof(fc.constantFrom(80, 443, 8080), fc.integer({ min: 1, max: 65535 })), { nil: undefined }),
  path,
  body: fc.array(fc.tuple(anyName, text), { maxLength: 6 }),
  repeatFirst: fc.option(text, { nil: undefined }),
  // Protocol parameters a client adds itself (oauth_callback on request_token, oauth_verifier on access_token).
  extras: fc.uniqueArray(
    fc.tuple(fc.constantFrom('oauth_callback', 'oauth_verifier'), text, fc.constantFrom('query', 'body')),
    { selector: ([name]) => name, maxLength: 2 },
  ),
  consumer: fc.record({ key: text, secret: text }),
  token: fc.option(fc.record({ key: text, secret: text }), { nil: undefined }),
  signatureMethod: fc.constantFrom(...SIGNATURE_METHODS),
  pick: fc.nat(),
  at: fc.nat(),
}

const extrasIn = (extras: Array<[string, string, string]>, place: string): Pairs =>
  extras.filter((extra) => extra[2] === place).map(([name, value]) => [name, value])

/** Body pairs, the first name repeated when asked, names already in the query left out (both libraries
 * let a query name override a body one). */
function bodyPairs(body: Pairs, repeatFirst: string | undefined, query: Pairs): Pairs {
  const queryNames = new Set(query.map(([name]) => name))
  const pairs = body.filter(([name]) => !queryNames.has(name))
  if (repeatFirst !== undefined && pairs[0]) pairs.push([pairs[0][0], repeatFirst])
  return pairs
}

const hmac = (algorithm: string) => (base: string, key: string) =>
  createHmac(algorithm, key).update(base).digest('base64')

describe('requests signed by the oauth-1.0a library', () => {
  test('pass our verifier, and fail it after a one-character change', () => {
    const arbitrary = fc.record({
      ...common,
      // oauth-1.0a signs the URL as written: no lower-casing, no dropping of :80/:443 (so none is sent).
      host: fc.constantFrom('example.com', 'api.x.com', '127.0.0.1', 'localhost', '[::1]', '[2001:db8::a]'),
      // oauth-1.0a reads query names without decoding them and keeps a repeat only if the first value
      // is non-empty; so query names are unreserved and unique, and repeats live in the body.
      query: fc.uniqueArray(fc.tuple(unreservedName, text), { selector: ([name]) => name, maxLength: 4 }),
      realm: fc.constantFrom(undefined, 'Example', 'http://sp.example.com/'),
      separator: fc.constantFrom(', ', ','),
    })
    fc.assert(
      fc.property(arbitrary, (c) => {
        const hashing = c.signatureMethod === 'PLAINTEXT' ? {} : { hash_function: hmac(c.signatureMethod.slice(5)) }
        const oauth = new OAuth1a({
          consumer: c.consumer,
          signature_method: c.signatureMethod,
          ...hashing,
          ...(c.realm === undefined ? {} : { realm: c.realm }),
          parameter_seperator: c.separator,
        })
        const query = [...c.query, ...extrasIn(c.extras, 'query')]
        const body = [...bodyPairs(c.body, c.repeatFirst, query), ...extrasIn(c.extras, 'body')]
        const isDefaultPort = c.port === (c.scheme === 'http' ? 80 : 443)
        const host = c.port === undefined || isDefaultPort ? c.host : `${c.host}:${c.port}`
        const search = query.map(([name, value]) => `${name}=${oauth.percentEncode(value)}`).join('&')
        const target = search === '' ? c.path : `${c.path}?${search}`
        // authorize() merges the query into `data`, so the body is written from our own list. The body's
        // oauth_* parameters also go into the header (the library's README pattern).
        const request = { url: `${c.scheme}://${host}${target}`, method: c.method, data: toObject(body) }
        const authorization = oauth.toHeader(oauth.authorize(request, c.token)).Authorization
        const bodyText = new URLSearchParams(body).toString()
        const wire = { method: c.method, scheme: c.scheme, host, target, authorization, body: bodyText }
        const secrets = { consumerSecret: c.consumer.secret, tokenSecret: c.token?.secret ?? '' }
        assertAcceptedUntilTampered(wire, secrets, c)
      }),
      { numRuns: propertyRuns(1000) },
    )
  })
})

/** node-oauth's signing, without its HTTP client: the two steps its _performSecureRequest runs. */
class NodeOAuth extends oauthPkg.OAuth {
  prepare(token: string, secret: string, method: string, url: string, extra: Record<string, string | string[]>) {
    return this._prepareParameters(token, secret, method, url, extra)
  }
  header(ordered: string[][]): string {
    return this._buildAuthorizationHeaders(ordered)
  }
}

describe('requests signed by the oauth (node-oauth) library', () => {
  test('pass our verifier in header or signed-URL form, and fail it after a one-character change', () => {
    const arbitrary = fc.record({
      ...common,
      // node-oauth lower-cases the host and drops default ports itself; its url.parse loses the
      // brackets of an IPv6 literal, so none is generated.
      host: fc.constantFrom('Example.COM', 'API.x.com', '127.0.0.1', 'localhost'),
      // node-oauth turns a repeated query name into `name[0]`, `name[1]`: query names are unique.
      query: fc.uniqueArray(fc.tuple(anyName, text), { selector: ([name]) => name, maxLength: 4 }),
      version: fc.constantFrom('1.0', '1.0A'),
      signUrl: fc.boolean(),
    })
    fc.assert(
      fc.property(arbitrary, (c) => {
        const client = new NodeOAuth('', '', c.consumer.key, c.consumer.secret, c.version, null, c.signatureMethod)
        const host = c.port === undefined ? c.host : `${c.host}:${c.port}`
        // url.parse escapes a raw ' in the path, so the path it signs would differ from the one sent.
        const path = c.path.replaceAll("'", '%27')
        const token = c.token?.key ?? ''
        const secrets = { consumerSecret: c.consumer.secret, tokenSecret: c.token?.secret ?? '' }
        let wire: Wire
        if (c.signUrl) {
          // signUrl moves everything into the query and writes names unencoded: unreserved names only.
          const query = [...c.query.filter(([name]) => isUnreserved(name)), ...extrasIn(c.extras, 'query')]
          const search = new URLSearchParams(query).toString()
          const url = `${c.scheme}://${host}${path}${search === '' ? '' : `?${search}`}`
          const match = /^([a-z]+):\/\/([^/]+)(.*)$/.exec(client.signUrl(url, token, secrets.tokenSecret, c.method))
          assert.ok(match)
          wire = { method: c.method, scheme: match[1] ?? '', host: match[2] ?? '', target: match[3] ?? '', body: '' }
        } else {
          const query = [...c.query, ...extrasIn(c.extras, 'query')]
          // node-oauth sends extra parameters as a body only for POST and PUT; for other methods it signs
          // parameters it never sends, so none are given. oauth_* extras go only into the header.
          const body = c.method === 'POST' || c.method === 'PUT' ? bodyPairs(c.body, c.repeatFirst, query) : []
          const search = new URLSearchParams(query).toString()
          const target = search === '' ? path : `${path}?${search}`
          const extra = toObject([...body, ...extrasIn(c.extras, 'body')])
          const url = `${c.scheme}://${host}${target}`
          const ordered = client.prepare(token, secrets.tokenSecret, c.method, url, extra)
          // The body exactly as _performSecureRequest writes it.
          const bodyText = querystring
            .stringify(toObject(body))
            .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
          const authorization = client.header(ordered)
          wire = { method: c.method, scheme: c.scheme, host, target, authorization, body: bodyText }
        }
        assertAcceptedUntilTampered(wire, secrets, c)
      }),
      { numRuns: propertyRuns(1000) },
    )
  })
})
