import { createHash } from 'node:crypto'
import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { parseOAuthHeader } from '../../protocol/oauth1/auth-header.ts'
import { parseFormEncoded } from '../../protocol/oauth1/form.ts'
import { collectParameters } from '../../protocol/oauth1/parameters.ts'
import { baseStringUri, buildBaseString } from '../../protocol/oauth1/signature.ts'
import { bodyText, isFormEncoded, type RequestInput } from '../request.ts'

/** A syntactically valid OAuth 1.0a request, not yet authenticated. */
export interface ParsedOAuthRequest {
  consumerKey: string
  /** The token, or undefined when absent or empty (`oauth_token=""` is a token-less request). */
  token: string | undefined
  signature: string
  signatureMethod: string
  /** The timestamp as seconds; undefined unless it is exactly 10 digits (checklist C13 → 135). */
  timestampSeconds: number | undefined
  nonce: string
  protocol: Map<string, string>
  /** The non-oauth_ parameters, from every source, repeats kept. */
  extra: Array<[string, string]>
  baseString: string
  /** undefined when there is no oauth_body_hash to check; else whether it matches the body. */
  bodyHashMatches: boolean | undefined
}

/** More parameters than any real request carries; the body and header limits bound their length. */
const MAX_PARAMETERS = 256
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/
const DIGITS = /^\d{1,15}$/
const VERSIONS = new Set(['1.0', '1.0a', '1.0A'])

function missing(name: string): ServiceError {
  return new ServiceError(E.badAuthenticationData, { detail: `${name} is missing` })
}

/**
 * Step one of every signed request: collect the parameters from the Authorization header, the
 * query and a form body (RFC 5849 §3.4.1.3.1, with Twitter's rule for repeats), check that the
 * mandatory ones are there and well-formed, and build the signature base string (§3.4.1).
 * Every failure here is 400 code 215, before any lookup, so it reveals nothing about credentials.
 */
export function parseSignedRequest(input: RequestInput, required: readonly string[] = []): ParsedOAuthRequest {
  const isForm = isFormEncoded(input.contentType)
  const { protocol, signed } = collectParameters({
    header: parseOAuthHeader(input.authorization),
    query: parseFormEncoded(input.query),
    body: isForm ? parseFormEncoded(bodyText(input.body)) : [],
  })
  assertThat(signed.length <= MAX_PARAMETERS, E.badAuthenticationData, { detail: 'too many parameters' })
  // The mandatory parameters, in this order, then the endpoint's own; each read once.
  const consumerKey = requirePresent(protocol, 'oauth_consumer_key')
  const signature = requirePresent(protocol, 'oauth_signature')
  const signatureMethod = requirePresent(protocol, 'oauth_signature_method')
  const timestamp = requirePresent(protocol, 'oauth_timestamp')
  const nonce = requirePresent(protocol, 'oauth_nonce')
  for (const name of required) requirePresent(protocol, name)
  const version = protocol.get('oauth_version')
  assertThat(version === undefined || VERSIONS.has(version), E.badAuthenticationData, { detail: 'bad oauth_version' })
  assertThat(PRINTABLE_ASCII.test(nonce), E.badAuthenticationData, { detail: 'oauth_nonce must be printable ASCII' })
  assertThat(DIGITS.test(timestamp), E.badAuthenticationData, { detail: 'oauth_timestamp must be digits' })
  const bodyHash = protocol.get('oauth_body_hash')
  const extra: Array<[string, string]> = []
  for (const pair of signed) if (!pair[0].startsWith('oauth_')) extra.push(pair)
  return {
    consumerKey,
    token: protocol.get('oauth_token') || undefined,
    signature,
    signatureMethod,
    timestampSeconds: timestamp.length === 10 ? Number(timestamp) : undefined,
    nonce,
    protocol,
    extra,
    baseString: buildBaseString(input.method, baseStringUri(input), signed),
    bodyHashMatches: bodyHash === undefined || isForm ? undefined : bodyHash === hashBody(input.body, signatureMethod),
  }
}

/** The value of a parameter that must be present and not empty. */
function requirePresent(protocol: Map<string, string>, name: string): string {
  const value = protocol.get(name)
  if (value === undefined || value === '') {
    throw name === 'oauth_callback'
      ? new ServiceError(E.badAuthenticationData, { message: 'Missing required parameter: oauth_callback' })
      : missing(name)
  }
  return value
}

/** The oauth_body_hash extension: base64 of the body's SHA-1 (SHA-256 for HMAC-SHA256). */
function hashBody(body: Buffer | string | undefined, signatureMethod: string): string {
  const algorithm = signatureMethod === 'HMAC-SHA256' ? 'sha256' : 'sha1'
  return createHash(algorithm).update(body ?? '').digest('base64')
}

/** The first value of a non-oauth parameter (query, body or header), e.g. x_auth_access_type. */
export function extraParam(request: ParsedOAuthRequest, ...names: string[]): string | undefined {
  for (const name of names) {
    const found = request.extra.find(([n]) => n === name)
    if (found) return found[1]
  }
  return undefined
}
