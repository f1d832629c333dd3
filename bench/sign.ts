import { createHmac, randomBytes } from 'node:crypto'

/**
 * The load generator's own OAuth 1.0a HMAC-SHA1 signer (RFC 5849 §3.4): the client side, written
 * for speed and independent of src/protocol. Every call gets a fresh nonce and the current
 * timestamp unless told otherwise.
 */

export interface KeyPair {
  key: string
  secret: string
}

export interface SignInput {
  method: string
  /** The base string URI as the client sees it: scheme://host[:port]/path, without the query. */
  baseUri: string
  /** Decoded query and form-body parameters (they are signed). */
  params?: Array<[string, string]>
  consumer: KeyPair
  token?: KeyPair
  /** More protocol parameters, such as oauth_callback. */
  oauth?: Array<[string, string]>
  nonce?: string
  timestamp?: number
}

const UNRESERVED_ONLY = /^[A-Za-z0-9\-._~]*$/
const LEFT_BY_JS = /[!'()*]/g
const hexEscape = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`

/** RFC 5849 §3.6 percent-encoding. */
export function encode(value: string): string {
  return UNRESERVED_ONLY.test(value) ? value : encodeURIComponent(value).replace(LEFT_BY_JS, hexEscape)
}

const NONCE_BASE = `${randomBytes(6).toString('hex')}${process.pid.toString(36)}x`
let nonceCounter = 0

/** Unique per process and across processes (random base), printable ASCII. */
export function newNonce(): string {
  return `${NONCE_BASE}${(nonceCounter++).toString(36)}`
}

const byPair = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)

/** The protocol parameters of a signed request, oauth_signature last. */
export function signParams(input: SignInput): Array<[string, string]> {
  const oauth: Array<[string, string]> = [
    ['oauth_consumer_key', input.consumer.key],
    ['oauth_nonce', input.nonce ?? newNonce()],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_timestamp', String(input.timestamp ?? Math.floor(Date.now() / 1000))],
    ['oauth_version', '1.0'],
  ]
  if (input.token) oauth.push(['oauth_token', input.token.key])
  if (input.oauth) oauth.push(...input.oauth)
  const all = input.params ? [...oauth, ...input.params] : oauth
  const encoded = all.map(([name, value]): [string, string] => [encode(name), encode(value)]).sort(byPair)
  let normalized = ''
  for (const [name, value] of encoded) normalized += `${normalized === '' ? '' : '&'}${name}=${value}`
  const base = `${input.method.toUpperCase()}&${encode(input.baseUri)}&${encode(normalized)}`
  const key = `${encode(input.consumer.secret)}&${encode(input.token?.secret ?? '')}`
  oauth.push(['oauth_signature', createHmac('sha1', key).update(base).digest('base64')])
  return oauth
}

/**
 * The load generator's fast path: everything but the nonce and the timestamp is encoded, sorted
 * and laid out once; each call only joins strings around them and computes the HMAC. Gives the
 * same header as toHeader(signParams(input)) with the same nonce and timestamp.
 */
export function fastSigner(input: Omit<SignInput, 'nonce' | 'timestamp'>): (nonce?: string, timestamp?: number) => string {
  // Stand-ins that sort where the real values go (by name; names are unique) and split the texts.
  const NONCE = '\u0001'
  const TIMESTAMP = '\u0002'
  const oauth = signParams({ ...input, nonce: NONCE, timestamp: 0 }).slice(0, -1)
  oauth[oauth.findIndex(([name]) => name === 'oauth_timestamp')]![1] = TIMESTAMP
  const all = input.params ? [...oauth, ...input.params] : oauth
  const normalized = all
    .map(([name, value]): [string, string] => [encode(name), value === NONCE || value === TIMESTAMP ? value : encode(value)])
    .sort(byPair)
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
  const [a, b, c] = splitAt(normalized, NONCE, TIMESTAMP)
  const basePrefix = `${input.method.toUpperCase()}&${encode(input.baseUri)}&${encode(a)}`
  const [baseMiddle, baseEnd] = [encode(b), encode(c)]
  const key = `${encode(input.consumer.secret)}&${encode(input.token?.secret ?? '')}`
  const header = `${toHeader(oauth)}, oauth_signature="`
  const [h1, h2, h3] = splitAt(header, encode(NONCE), encode(TIMESTAMP))
  return (nonce = newNonce(), timestamp = Math.floor(Date.now() / 1000)) => {
    const n = encode(nonce)
    const t = String(timestamp)
    const signature = createHmac('sha1', key).update(`${basePrefix}${n}${baseMiddle}${t}${baseEnd}`).digest('base64')
    return `${h1}${n}${h2}${t}${h3}${encode(signature)}"`
  }
}

/** The text before `first`, between `first` and `second`, and after `second`. */
function splitAt(text: string, first: string, second: string): [string, string, string] {
  const i = text.indexOf(first)
  const j = text.indexOf(second, i)
  return [text.slice(0, i), text.slice(i + first.length, j), text.slice(j + second.length)]
}

/** `OAuth name="value", …` from protocol parameters. */
export function toHeader(oauth: Array<[string, string]>): string {
  return `OAuth ${oauth.map(([name, value]) => `${encode(name)}="${encode(value)}"`).join(', ')}`
}

/** Signs and returns the Authorization header value. */
export function authorization(input: SignInput): string {
  return toHeader(signParams(input))
}

/** The same parameters with one character of the signature changed (still valid base64). */
export function tampered(oauth: Array<[string, string]>): Array<[string, string]> {
  return oauth.map(([name, value]): [string, string] =>
    name === 'oauth_signature' ? [name, `${value[0] === 'A' ? 'B' : 'A'}${value.slice(1)}`] : [name, value],
  )
}

/** Decoded `name=value` pairs of a query string or form body (`+` is a space). */
export function formPairs(text: string): Array<[string, string]> {
  if (text === '') return []
  const decode = (s: string) => decodeURIComponent(s.replaceAll('+', ' '))
  return text.split('&').map((piece) => {
    const eq = piece.indexOf('=')
    return eq === -1 ? [decode(piece), ''] : [decode(piece.slice(0, eq)), decode(piece.slice(eq + 1))]
  })
}
