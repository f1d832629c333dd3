import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'

/** The characters encodeURIComponent leaves alone that RFC 3986 §2.3 does not count as unreserved. */
const SUB_DELIMS_LEFT_RAW = /[!'()*]/g
/** Only unreserved characters (RFC 3986 §2.3): nothing to encode. */
const UNRESERVED_ONLY = /^[A-Za-z0-9\-._~]*$/
/** A `%` not followed by two hex digits (RFC 3986 §2.1). */
const MALFORMED_ESCAPE = /%(?![0-9A-Fa-f]{2})/

/**
 * RFC 5849 §3.6 (RFC 3986 §2.1): UTF-8 encode, then escape every octet outside the unreserved set
 * `A-Z a-z 0-9 - . _ ~` as `%XX` with upper-case hex. A string holding a lone surrogate has no
 * UTF-8 form and throws 215.
 */
export function percentEncode(value: string): string {
  // Fast path: most values (keys, tokens, nonces, timestamps) need no encoding, and this test is
  // cheaper than encoding (bench/protocol-micro.ts, "percentEncode, unreserved value"; shape 1).
  if (UNRESERVED_ONLY.test(value)) return value
  let encoded: string
  try {
    encoded = encodeURIComponent(value)
  } catch (cause) {
    throw new ServiceError(E.badAuthenticationData, { detail: 'value is not well-formed Unicode', cause })
  }
  return encoded.replace(SUB_DELIMS_LEFT_RAW, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
}

/**
 * RFC 3986 §2.1 decoding for RFC 5849 §3.6 values: hex of either case; a malformed escape or non-UTF-8
 * octets throw 215; raw characters are kept. `plusAsSpace` is the form rule (RFC 5849 §3.4.1.3.1).
 */
export function percentDecode(value: string, options?: { plusAsSpace?: boolean }): string {
  // Raw characters that should have been escaped (`,`, `[`, a space) are accepted, as Twitter does
  // (twitter-behaviour §3 item 7); they are re-encoded for the base string like any other.
  const text = options?.plusAsSpace === true ? value.replaceAll('+', ' ') : value
  if (!text.includes('%')) return text
  if (MALFORMED_ESCAPE.test(text)) throw new ServiceError(E.badAuthenticationData, { detail: 'malformed percent-escape' })
  try {
    return decodeURIComponent(text)
  } catch (cause) {
    throw new ServiceError(E.badAuthenticationData, { detail: 'percent-escapes are not UTF-8', cause })
  }
}
