import { createHmac } from 'node:crypto'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { constantTimeEqual } from '../secrets.ts'
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
    if (!/^[0-9]{1,5}$/.test(portText)) badHost(input.host)
    const port = Number(portText)
    if (port < 1 || port > 65535) badHost(input.host)
    const isDefault = (scheme === 'http' && port === 80) || (scheme === 'https' && port === 443)
    if (!isDefault) authority = `${hostname}:${port}`
  }
  const cut = input.path.search(/[?#]/)
  const path = cut === -1 ? input.path : input.path.slice(0, cut)
  return `${scheme}://${authority}${path === '' ? '/' : path}`
}

/**
 * RFC 5849 §3.4.1.3.2 parameter normalization: encode names and values (§3.6), sort by encoded
 * name then encoded value in byte order, join as `name=value` with `&`.
 */
export function normalizeParameters(pairs: Array<[string, string]>): string {
  const encoded = pairs.map(([name, value]): [string, string] => [percentEncode(name), percentEncode(value)])
  // Encoded strings are ASCII, so UTF-16 code-unit order is byte order (not localeCompare).
  encoded.sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
  return encoded.map(([name, value]) => `${name}=${value}`).join('&')
}

/** RFC 5849 §3.4.1.1 signature base string: `METHOD&enc(base string URI)&enc(normalized parameters)`. */
export function buildBaseString(method: string, baseUri: string, pairs: Array<[string, string]>): string {
  return `${method.toUpperCase()}&${percentEncode(baseUri)}&${percentEncode(normalizeParameters(pairs))}`
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
 * `oauth_signature` in constant time. Any received string, garbage or non-ASCII, is just false.
 */
export function verifySignature(
  method: SignatureMethod,
  baseString: string,
  consumerSecret: string,
  tokenSecret: string,
  received: string,
): boolean {
  if (!isSignatureMethod(method)) return false
  return constantTimeEqual(sign(method, baseString, consumerSecret, tokenSecret), received)
}
