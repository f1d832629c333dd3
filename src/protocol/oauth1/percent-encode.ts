import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'

// Every name and value of every signed request passes through these functions. The common value
// (a key, a token, a nonce, a timestamp) has nothing to encode or decode and is returned as it is,
// after one native scan (a one-class regular expression or indexOf: V8 runs these faster than a
// loop over char codes in JavaScript). The rest is one pass over char codes, with no regular
// expression or callback per character, runs of characters kept as they are copied whole.

/** The first character outside the RFC 3986 §2.3 unreserved set `A-Z a-z 0-9 - . _ ~`. */
const NEEDS_ESCAPE = /[^A-Za-z0-9\-._~]/
/** 1 for the unreserved set, by char code below 128. */
const UNRESERVED = new Uint8Array(128)
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~') UNRESERVED[char.charCodeAt(0)] = 1

const HEX_DIGITS = '0123456789ABCDEF'
/** `%XX`, upper-case hex, for every octet. */
const ESCAPE: readonly string[] = Array.from({ length: 256 }, (_, octet) => `%${HEX_DIGITS[octet >> 4]}${HEX_DIGITS[octet & 15]}`)
/** `%XX` encoded once more: `%25XX`. */
const ESCAPE_TWICE: readonly string[] = ESCAPE.map((escape) => `%25${escape.slice(1)}`)

/** The value of a hex digit's char code, or -1; both cases (RFC 3986 §2.1). */
const HEX_VALUE = new Int8Array(128).fill(-1)
for (let d = 0; d < 16; d++) {
  HEX_VALUE[HEX_DIGITS.charCodeAt(d)] = d
  HEX_VALUE[HEX_DIGITS.toLowerCase().charCodeAt(d)] = d
}

function notUnicode(): never {
  throw new ServiceError(E.badAuthenticationData, { detail: 'value is not well-formed Unicode' })
}

/**
 * RFC 5849 §3.6 (RFC 3986 §2.1): UTF-8 encode, then escape every octet outside the unreserved set
 * `A-Z a-z 0-9 - . _ ~` as `%XX` with upper-case hex. A string holding a lone surrogate has no
 * UTF-8 form and throws 215.
 */
export function percentEncode(value: string): string {
  const first = value.search(NEEDS_ESCAPE)
  return first === -1 ? value : encodeFrom(value, first, ESCAPE)
}

/**
 * `percentEncode(percentEncode(value))` in one pass, as names and values appear in the RFC 5849
 * §3.4.1.1 base string (encoded for normalization, §3.4.1.3.2, then the whole encoded again): an
 * encoded value holds only unreserved characters and `%XX`, so the second pass turns each `%`
 * into `%25` and nothing else.
 */
export function percentEncodeTwice(value: string): string {
  const first = value.search(NEEDS_ESCAPE)
  return first === -1 ? value : encodeFrom(value, first, ESCAPE_TWICE)
}

/** percentEncode's work from the first character to escape on, each octet escaped as `escape` has it. */
function encodeFrom(value: string, first: number, escape: readonly string[]): string {
  const n = value.length
  // Unreserved runs are copied with one slice each; only escaped octets are appended one by one.
  let out = ''
  let runStart = 0
  for (let i = first; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c < 128) {
      if (UNRESERVED[c] === 1) continue
      out += value.slice(runStart, i) + escape[c]
    } else if (c < 0x800) {
      out += value.slice(runStart, i) + escape[0xc0 | (c >> 6)] + escape[0x80 | (c & 63)]
    } else if (c < 0xd800 || c > 0xdfff) {
      out += value.slice(runStart, i) + escape[0xe0 | (c >> 12)] + escape[0x80 | ((c >> 6) & 63)] + escape[0x80 | (c & 63)]
    } else {
      // A surrogate: only a high one followed by a low one is a code point (U+10000 and up).
      const low = i + 1 < n ? value.charCodeAt(i + 1) : 0
      if (c > 0xdbff || low < 0xdc00 || low > 0xdfff) notUnicode()
      const point = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00)
      out +=
        value.slice(runStart, i) +
        escape[0xf0 | (point >> 18)] +
        escape[0x80 | ((point >> 12) & 63)] +
        escape[0x80 | ((point >> 6) & 63)] +
        escape[0x80 | (point & 63)]
      i++
    }
    runStart = i + 1
  }
  return out + value.slice(runStart)
}

/**
 * RFC 3986 §2.1 decoding for RFC 5849 §3.6 values: hex of either case; a malformed escape or non-UTF-8
 * octets throw 215; raw characters are kept. `plusAsSpace` is the form rule (RFC 5849 §3.4.1.3.1).
 */
export function percentDecode(value: string, options?: { plusAsSpace?: boolean }): string {
  // Raw characters that should have been escaped (`,`, `[`, a space) are accepted, as Twitter does
  // (twitter-behaviour §3 item 7); they are re-encoded for the base string like any other.
  const plusAsSpace = options?.plusAsSpace === true
  let percent = value.indexOf('%')
  let plus = plusAsSpace ? value.indexOf('+') : -1
  if (percent === -1) return plus === -1 ? value : value.replaceAll('+', ' ')
  // From one `%` (or `+`) to the next with indexOf; the text between is copied with one slice.
  // Escapes of ASCII octets are decoded here. The first escape of an octet at or above 0x80 hands
  // the rest to decodeURIComponent, whose UTF-8 checks (overlong forms, surrogates, past U+10FFFF,
  // truncated sequences) are the ones this function has always applied; raw text needs no checks.
  let out = ''
  let runStart = 0
  while (percent !== -1 || plus !== -1) {
    if (plus !== -1 && (percent === -1 || plus < percent)) {
      out += `${value.slice(runStart, plus)} `
      runStart = plus + 1
      plus = value.indexOf('+', runStart)
      continue
    }
    const octet = percent + 2 < value.length ? hexOctet(value.charCodeAt(percent + 1), value.charCodeAt(percent + 2)) : -1
    if (octet === -1) malformedEscape()
    if (octet >= 0x80) return out + decodeRest(value.slice(runStart), plusAsSpace)
    out += value.slice(runStart, percent) + String.fromCharCode(octet)
    // A pending `+` lies past this escape: hex digits are never `+`.
    runStart = percent + 3
    percent = value.indexOf('%', runStart)
  }
  return out + value.slice(runStart)
}

/** The octet of two hex digits' char codes, or -1. */
function hexOctet(high: number, low: number): number {
  const h = high < 128 ? HEX_VALUE[high]! : -1
  const l = low < 128 ? HEX_VALUE[low]! : -1
  return h < 0 || l < 0 ? -1 : (h << 4) | l
}

function malformedEscape(): never {
  throw new ServiceError(E.badAuthenticationData, { detail: 'malformed percent-escape' })
}

/** The text from the first escape of a non-ASCII octet on: every escape checked, then decodeURIComponent. */
function decodeRest(rest: string, plusAsSpace: boolean): string {
  const text = plusAsSpace && rest.includes('+') ? rest.replaceAll('+', ' ') : rest
  for (let i = text.indexOf('%'); i !== -1; i = text.indexOf('%', i + 3)) {
    if (i + 2 >= text.length || hexOctet(text.charCodeAt(i + 1), text.charCodeAt(i + 2)) === -1) malformedEscape()
  }
  try {
    return decodeURIComponent(text)
  } catch (cause) {
    throw new ServiceError(E.badAuthenticationData, { detail: 'percent-escapes are not UTF-8', cause })
  }
}
