import { createHmac } from 'node:crypto'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { constantTimeEqual, equalOfPublicLength } from '../secrets.ts'
import { percentEncode } from './percent-encode.ts'

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
function byEncodedPair([an, av]: [string, string], [bn, bv]: [string, string]): number {
  if (an !== bn) return an < bn ? -1 : 1
  return av < bv ? -1 : av > bv ? 1 : 0
}

/**
 * RFC 5849 §3.4.1.3.2 parameter normalization: encode names and values (§3.6), sort by encoded
 * name then encoded value in byte order, join as `name=value` with `&`.
 */
export function normalizeParameters(pairs: Array<[string, string]>): string {
  return pairs
    .map(([name, value]): [string, string] => [percentEncode(name), percentEncode(value)])
    .sort(byEncodedPair)
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
}

/** Up to this many pairs, an insertion sort: a request's few parameters come nearly sorted. */
const INSERTION_SORT_LIMIT = 16

/** `enc(enc(value))`: encoding an encoded value (§3.6) only turns each `%` into `%25`. */
function percentEncodeTwice(value: string): string {
  const once = percentEncode(value)
  return once.includes('%') ? once.replaceAll('%', '%25') : once
}

/**
 * RFC 5849 §3.4.1.1 signature base string: `METHOD&enc(base string URI)&enc(normalized parameters)`.
 *
 * Fast path, measured by bench/protocol-micro.ts (buildBaseString) and bench shape 1:
 * the normalized parameters are not built and then encoded whole; each name and value is encoded
 * twice on its own and the pairs are joined with `enc("=")` = `%3D` and `enc("&")` = `%26`, the same
 * text since §3.6 encodes character by character (`%`→`%25` keeps the byte order, so sorting the
 * twice-encoded pairs sorts the encoded ones). A request's handful of pairs, nearly sorted as
 * clients send them, is sorted by insertion: Array.prototype.sort calls back for every comparison.
 */
export function buildBaseString(method: string, baseUri: string, pairs: Array<[string, string]>): string {
  const encoded = pairs.map(([name, value]): [string, string] => [percentEncodeTwice(name), percentEncodeTwice(value)])
  if (encoded.length > INSERTION_SORT_LIMIT) encoded.sort(byEncodedPair)
  else insertionSort(encoded)
  const parameters = encoded.map(([name, value]) => `${name}%3D${value}`).join('%26')
  return `${method.toUpperCase()}&${percentEncode(baseUri)}&${parameters}`
}

function insertionSort(pairs: Array<[string, string]>): void {
  for (let i = 1; i < pairs.length; i++) {
    const pair = pairs[i]!
    let j = i - 1
    for (; j >= 0 && byEncodedPair(pairs[j]!, pair) > 0; j--) pairs[j + 1] = pairs[j]!
    pairs[j + 1] = pair
  }
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
