/**
 * RFC 6750 §2.1: the token of an `Authorization: Bearer <token>` header (scheme case-insensitive),
 * or undefined when the header is absent or of another scheme.
 */
export function parseBearerHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header)
  return match ? match[1] : undefined
}

/**
 * A bearer token in the form it was issued, whatever the client did to it: Twitter-style tokens
 * carry literal `%2B`/`%2F`/`%3D`, which some clients decode and others encode once more (RFC 6749
 * §2.3.1 form-encoding, twitter-behaviour §2.6). Decoding fully then writing `+`, `/` and `=` back
 * as escapes gives one canonical form, since issued tokens escape exactly those three.
 */
export function canonicalBearerToken(value: string): string {
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
