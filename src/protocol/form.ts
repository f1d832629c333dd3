import { percentDecode, percentEncode } from './oauth1/percent-encode.ts'

const FORM = { plusAsSpace: true } as const

/**
 * Parses form-encoded query or body text (RFC 5849 §3.4.1.3.1): `&`-separated, empty pieces skipped,
 * no `=` means an empty value, `+` is a space, repeats kept in order; a malformed escape throws 215.
 */
export function parseFormEncoded(text: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  // Most signed requests have no query and no body: nothing to split.
  if (text === '') return pairs
  for (const piece of text.split('&')) {
    if (piece === '') continue
    const eq = piece.indexOf('=')
    const name = eq === -1 ? piece : piece.slice(0, eq)
    const value = eq === -1 ? '' : piece.slice(eq + 1)
    pairs.push([percentDecode(name, FORM), percentDecode(value, FORM)])
  }
  return pairs
}

/**
 * Serializes pairs as `name=value&…` with RFC 5849 §3.6 encoding, order kept: the body of the
 * token endpoints' responses (RFC 5849 §2.1, §2.3).
 */
export function serializeForm(pairs: Array<[string, string]>): string {
  return pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')
}
