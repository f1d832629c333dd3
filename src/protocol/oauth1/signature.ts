import { createHmac } from 'node:crypto'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { constantTimeEqual, equalOfPublicLength } from '../secrets.ts'
import { percentEncode, percentEncodeTwice } from './percent-encode.ts'

export type SignatureMethod = 'HMAC-SHA1' | 'HMAC-SHA256' | 'PLAINTEXT'
export const SIGNATURE_METHODS: readonly SignatureMethod[] = ['HMAC-SHA1', 'HMAC-SHA256', 'PLAINTEXT']

/** Whether `value` names a method this module implements (RFC 5849 §3.4; allow-listing is the caller's). */
export function isSignatureMethod(value: string): value is SignatureMethod {
  return (SIGNATURE_METHODS as readonly string[]).includes(value)
}

function badHost(host: string): never {
  throw new ServiceError(E.badAuthenticationData, { detail: `bad host for the base string URI: ${host}` })
}

const REG_NAME = /^[a-z0-9\-._~!$&'()*+,;=%]+$/ // RFC 3986 §3.2.2 reg-name (and IPv4)
const IP_LITERAL = /^\[[0-9a-f:.]+\]$/ // RFC 3986 §3.2.2 IPv6 in brackets
const PORT = /^[0-9]{1,5}$/
const QUERY_OR_FRAGMENT = /[?#]/

/**
 * RFC 5849 §3.4.1.2 base string URI: scheme and host lower-cased, port kept unless the default
 * (80 http, 443 https; RFC 3986 §3.2.3), empty path → `/`, path used in its wire form as given,
 * query and fragment dropped. `host` may carry a port; a bad host or a port outside 1–65535 throws 215.
 */
export function baseStringUri(input: { scheme: string; host: string; path: string }): string {
  const scheme = input.scheme.toLowerCase()
  const host = input.host.toLowerCase()
  const bracketEnd = host.startsWith('[') ? host.indexOf(']') : -1
  const colon = host.indexOf(':', bracketEnd + 1)
  const hostname = colon === -1 ? host : host.slice(0, colon)
  const portText = colon === -1 ? '' : host.slice(colon + 1)
  if (!REG_NAME.test(hostname) && !IP_LITERAL.test(hostname)) badHost(input.host)
  let authority = hostname
  if (portText !== '') {
    if (!PORT.test(portText)) badHost(input.host)
    const port = Number(portText)
    if (port < 1 || port > 65535) badHost(input.host)
    const isDefault = (scheme === 'http' && port === 80) || (scheme === 'https' && port === 443)
    if (!isDefault) authority = `${hostname}:${port}`
  }
  const cut = input.path.search(QUERY_OR_FRAGMENT)
  const path = cut === -1 ? input.path : input.path.slice(0, cut)
  return `${scheme}://${authority}${path === '' ? '/' : path}`
}

/** Byte order of encoded pairs, by name then value: encoded strings are ASCII, so UTF-16 code-unit order is byte order (not localeCompare). */
function byEncodedPair(a: [string, string], b: [string, string]): number {
  const an = a[0]
  const bn = b[0]
  if (an !== bn) return an < bn ? -1 : 1
  const av = a[1]
  const bv = b[1]
  return av < bv ? -1 : av > bv ? 1 : 0
}

/** Up to this many pairs, an insertion sort: a request's few parameters come nearly sorted. */
const INSERTION_SORT_LIMIT = 16

/**
 * The pairs, each name and value passed through `encode`, sorted by name then value in byte order
 * (RFC 5849 §3.4.1.3.2). `encode` is percentEncode, or percentEncodeTwice for the base string:
 * turning every `%` into `%25` keeps the order of any two encoded strings (the first character
 * where they differ compares the same, `%` against another character included), so sorting the
 * twice-encoded pairs sorts the encoded ones.
 */
function encodeAndSort(pairs: Array<[string, string]>, encode: (value: string) => string): Array<[string, string]> {
  const n = pairs.length
  const encoded = new Array<[string, string]>(n)
  for (let i = 0; i < n; i++) {
    const pair = pairs[i]!
    encoded[i] = [encode(pair[0]), encode(pair[1])]
  }
  if (n > INSERTION_SORT_LIMIT) return encoded.sort(byEncodedPair)
  // Array.prototype.sort calls back into JavaScript for every comparison; for the handful of
  // parameters a request carries, in the order clients usually send them, this is cheaper.
  for (let i = 1; i < n; i++) {
    const pair = encoded[i]!
    let j = i - 1
    for (; j >= 0 && byEncodedPair(encoded[j]!, pair) > 0; j--) encoded[j + 1] = encoded[j]!
    encoded[j + 1] = pair
  }
  return encoded
}

/**
 * RFC 5849 §3.4.1.3.2 parameter normalization: encode names and values (§3.6), sort by encoded
 * name then encoded value in byte order, join as `name=value` with `&`.
 */
export function normalizeParameters(pairs: Array<[string, string]>): string {
  const sorted = encodeAndSort(pairs, percentEncode)
  let normalized = ''
  for (let i = 0; i < sorted.length; i++) normalized += `${i === 0 ? '' : '&'}${sorted[i]![0]}=${sorted[i]![1]}`
  return normalized
}

/**
 * RFC 5849 §3.4.1.1 signature base string: `METHOD&enc(base string URI)&enc(normalized parameters)`.
 * The normalized parameters are not built and then encoded whole: each name and value is encoded
 * twice on its own (percentEncodeTwice) and they are joined with `enc("=")` = `%3D` and
 * `enc("&")` = `%26`, which gives the same text because §3.6 encodes character by character.
 */
export function buildBaseString(method: string, baseUri: string, pairs: Array<[string, string]>): string {
  const sorted = encodeAndSort(pairs, percentEncodeTwice)
  let base = `${method.toUpperCase()}&${percentEncode(baseUri)}&`
  for (let i = 0; i < sorted.length; i++) {
    const [name, value] = sorted[i]!
    base += `${i === 0 ? '' : '%26'}${name}%3D${value}`
  }
  return base
}

/** RFC 5849 §3.4.2 key: `enc(consumer secret)&enc(token secret)`; an absent token secret is `''`. */
export function signingKey(consumerSecret: string, tokenSecret: string): string {
  return `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`
}

/**
 * RFC 5849 §3.4.2 HMAC-SHA1 (and HMAC-SHA256, the same construction with SHA-256) as base64, or
 * §3.4.4 PLAINTEXT, which is the signing key itself.
 */
export function sign(
  method: SignatureMethod,
  baseString: string,
  consumerSecret: string,
  tokenSecret: string,
): string {
  const key = signingKey(consumerSecret, tokenSecret)
  switch (method) {
    case 'HMAC-SHA1':
      return createHmac('sha1', key).update(baseString, 'utf8').digest('base64')
    case 'HMAC-SHA256':
      return createHmac('sha256', key).update(baseString, 'utf8').digest('base64')
    case 'PLAINTEXT':
      return key
  }
  throw new ServiceError(E.badAuthenticationData, { detail: `unsupported method ${String(method)}` })
}

/**
 * RFC 5849 §3.2: recomputes the signature and compares it with the received (decoded)
 * `oauth_signature` without a timing signal (§4.6). An HMAC signature's length is fixed by its
 * method and so public: a length check, then timingSafeEqual. A PLAINTEXT signature is the signing
 * key (§3.4.4), whose length is the secrets', so it goes through constantTimeEqual, which hides it.
 * Any received string, garbage or non-ASCII, is just false.
 */
export function verifySignature(
  method: SignatureMethod,
  baseString: string,
  consumerSecret: string,
  tokenSecret: string,
  received: string,
): boolean {
  if (!isSignatureMethod(method)) return false
  const expected = sign(method, baseString, consumerSecret, tokenSecret)
  return method === 'PLAINTEXT' ? constantTimeEqual(expected, received) : equalOfPublicLength(expected, received)
}
