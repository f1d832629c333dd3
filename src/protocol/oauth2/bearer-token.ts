/**
 * RFC 6750 §2.1: the token of an `Authorization: Bearer <token>` header (scheme case-insensitive),
 * or undefined when the header is absent or of another scheme.
 */
export function parseBearerHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  // One regular expression with disjoint classes (no backtracking): measured faster than the same
  // scan over char codes in JavaScript.
  const match = BEARER.exec(header)
  return match ? match[1] : undefined
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i
/** A raw character that canonicalBearerToken writes as an escape. */
const ESCAPED_IN_TOKENS = /[+/=]/

/**
 * Whether `value` is already canonical: no raw `+`, `/` or `=`, and every `%` starts exactly `%2B`,
 * `%2F` or `%3D` (upper case), which is how newBearerTokenValue writes every token it issues.
 */
function isCanonical(value: string): boolean {
  if (ESCAPED_IN_TOKENS.test(value)) return false
  for (let i = value.indexOf('%'); i !== -1; i = value.indexOf('%', i + 3)) {
    const high = value.charCodeAt(i + 1)
    const low = value.charCodeAt(i + 2)
    if (!((high === 0x32 && (low === 0x42 || low === 0x46)) || (high === 0x33 && low === 0x44))) return false
  }
  return true
}

/**
 * A bearer token in the form it was issued, whatever the client did to it: Twitter-style tokens
 * carry literal `%2B`/`%2F`/`%3D`, which some clients decode and others encode once more (RFC 6749
 * §2.3.1 form-encoding, twitter-behaviour §2.6). Decoding fully then writing `+`, `/` and `=` back
 * as escapes gives one canonical form, since issued tokens escape exactly those three.
 */
export function canonicalBearerToken(value: string): string {
  // A token as issued decodes to its three characters and is written back the same: one scan.
  if (isCanonical(value)) return value
  let decoded = value
  for (let round = 0; round < 3 && /%[0-9A-Fa-f]{2}/.test(decoded); round++) {
    try {
      decoded = decodeURIComponent(decoded)
    } catch {
      return value
    }
  }
  return decoded.replaceAll('+', '%2B').replaceAll('/', '%2F').replaceAll('=', '%3D')
}
