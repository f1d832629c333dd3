import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { percentDecode, percentEncode } from './percent-encode.ts'

function malformed(why: string): never {
  throw new ServiceError(E.badAuthenticationData, { detail: `Authorization header: ${why}` })
}

const TAB = 0x09
const SPACE = 0x20
const QUOTE = 0x22
const COMMA = 0x2c
const EQUALS = 0x3d
const WHITESPACE = /\s/
/** Up to this many pairs a repeated name is found by scanning them; past it, with a Set. */
const SCAN_LIMIT = 16

/** Whether `text` starts with the scheme `OAuth` in any case, then whitespace or the end (RFC 7235 §2.1). */
function hasOAuthScheme(text: string): boolean {
  if (text.length < 5) return false
  // `| 0x20` lower-cases an ASCII letter, and no other char code gives `o`, `a`, `u`, `t` or `h`.
  if (
    (text.charCodeAt(0) | 0x20) !== 0x6f ||
    (text.charCodeAt(1) | 0x20) !== 0x61 ||
    (text.charCodeAt(2) | 0x20) !== 0x75 ||
    (text.charCodeAt(3) | 0x20) !== 0x74 ||
    (text.charCodeAt(4) | 0x20) !== 0x68
  ) {
    return false
  }
  // The scheme has always ended at any JavaScript whitespace (`\s`), not only a space or a tab.
  return text.length === 5 || text.charCodeAt(5) === SPACE || WHITESPACE.test(text.charAt(5))
}

/**
 * Parses `Authorization: OAuth …` (RFC 5849 §3.5.1) into decoded pairs, header order kept; undefined
 * when there is no header or its scheme is not OAuth. Tolerant like Twitter's verifier (any order,
 * `,`/`, `/` ,` separators, unquoted values, `realm` dropped); malformed or a name twice throws 215.
 */
export function parseOAuthHeader(header: string | undefined): Array<[string, string]> | undefined {
  if (header === undefined) return undefined
  const text = header.trim()
  if (!hasOAuthScheme(text)) return undefined

  const pairs: Array<[string, string]> = []
  let seen: Set<string> | undefined
  const n = text.length
  let i = 5
  let c = 0

  // One pass over char codes, left to right: name OWS "=" OWS (quoted | bare) value, then OWS and
  // "," or the end. Spaces are SP and HTAB only (RFC 7230 §3.2.3 OWS).
  while (i < n && ((c = text.charCodeAt(i)) === SPACE || c === TAB || c === COMMA)) i++
  while (i < n) {
    const nameStart = i
    while (i < n && (c = text.charCodeAt(i)) !== SPACE && c !== TAB && c !== EQUALS && c !== COMMA && c !== QUOTE) i++
    if (i === nameStart) malformed(`expected a parameter name at ${i}`)
    const rawName = text.slice(nameStart, i)
    while (i < n && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++
    if (i === n || c !== EQUALS) malformed(`no "=" after ${rawName}`)
    i++
    while (i < n && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++
    let rawValue: string
    if (i < n && c === QUOTE) {
      const close = text.indexOf('"', i + 1)
      if (close === -1) malformed(`unterminated quoted value for ${rawName}`)
      rawValue = text.slice(i + 1, close)
      i = close + 1
    } else {
      const valueStart = i
      while (i < n && (c = text.charCodeAt(i)) !== SPACE && c !== TAB && c !== COMMA && c !== QUOTE) i++
      rawValue = text.slice(valueStart, i)
    }
    while (i < n && ((c = text.charCodeAt(i)) === SPACE || c === TAB)) i++
    if (i < n && c !== COMMA) malformed(`expected "," after ${rawName}`)
    while (i < n && ((c = text.charCodeAt(i)) === SPACE || c === TAB || c === COMMA)) i++

    const name = percentDecode(rawName)
    // realm is not a signed parameter (RFC 5849 §3.4.1.3.1); its value is not percent-encoded.
    if (name.length === 5 && name.toLowerCase() === 'realm') continue
    if (seen !== undefined) {
      if (seen.has(name)) malformed(`${name} appears twice`)
      seen.add(name)
    } else {
      // A real header has about seven pairs: scanning them beats a Set; a hostile one gets the Set.
      for (const [earlier] of pairs) if (earlier === name) malformed(`${name} appears twice`)
      if (pairs.length === SCAN_LIMIT) seen = new Set([...pairs.map(([earlier]) => earlier), name])
    }
    pairs.push([name, percentDecode(rawValue)])
  }
  return pairs
}

/**
 * Builds `OAuth realm="…", name="value", …` (RFC 5849 §3.5.1), names and values encoded per §3.6,
 * order kept. The realm is written as given, so it must not contain `"` or `\`.
 */
export function buildOAuthHeader(params: Array<[string, string]>, realm?: string): string {
  const items = params.map(([name, value]) => `${percentEncode(name)}="${percentEncode(value)}"`)
  if (realm !== undefined) {
    if (/["\\]/.test(realm)) throw new RangeError('realm must not contain " or \\')
    items.unshift(`realm="${realm}"`)
  }
  return items.length === 0 ? 'OAuth' : `OAuth ${items.join(', ')}`
}
