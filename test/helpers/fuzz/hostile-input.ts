import fc from 'fast-check'
import type { Attempt } from './raw-exchange.ts'

// Building blocks of hostile input, shared by the fuzzes of the admin API and the pages.

const CONTROLS = ['\u0000', '\u0001', '\u0007', '\b', '\u000b', '\f', '\u001b', '\u001f', '\u007f']
export const control = fc.constantFrom(...CONTROLS)
/**
 * Text with a control character inside it (refused by every text field: src/domain/plain-text.ts);
 * never at either end, where trimming (\v and \f are white space) would take it away.
 */
export const withControl = fc.tuple(fc.string({ maxLength: 12 }), control, fc.string({ maxLength: 12 })).map(([a, c, b]) => `Ok${a}${c}x${b}`)
/** Any text: control characters, lone surrogates, astral characters, markup. */
export const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '\ud800', 'a\udfffb', '\u{1f600}', '<script>alert(1)</script>', '"><img src=x>', '../../etc/passwd', '%00', '${x}', '\u202e', '\ufeff'),
)
/** Byte sequences that are not UTF-8: a stray continuation byte, a truncated sequence, an overlong form, a surrogate, 0xFF. */
const INVALID_UTF8 = [[0xff], [0xfe, 0xff], [0x80], [0xc3, 0x28], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]]
export const invalidUtf8 = fc.constantFrom(...INVALID_UTF8.map((bytes) => Buffer.from(bytes)))
export const percentOf = (bytes: Buffer) => [...bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('')
/** Percent-encoding of any text; a lone surrogate, which has no UTF-8 form, as its WTF-8 bytes (which are no UTF-8 either). */
export function encodeLoose(text: string): string {
  try {
    return encodeURIComponent(text)
  } catch {
    return [...text].map((c) => (/^[\ud800-\udfff]$/.test(c) ? percentOf(Buffer.from([0xed, 0xa0 | ((c.charCodeAt(0) >> 6) & 0x0f), 0x80 | (c.charCodeAt(0) & 0x3f)])) : encodeURIComponent(c))).join('')
  }
}
/** Percent-escapes that are malformed or decode to no UTF-8. */
export const badEscape = fc.oneof(invalidUtf8.map(percentOf), fc.constantFrom('%', '%G0', '%zz', '%2', '%%', '%u0041', '%E2%82%2'))
/** Longer than any text field's bound (the longest, a password, is 1024). */
export const hugeString = fc.constantFrom(1_025, 5_000, 40_000).map((n) => 'x'.repeat(n))

/** Any JSON value of the wrong kind for a field of `kind`. */
export function wrongType(kind: 'string' | 'boolean' | 'array' | 'integer'): fc.Arbitrary<unknown> {
  const all = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 10 }),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  )
  return all.filter((v) => {
    if (kind === 'string') return typeof v !== 'string'
    if (kind === 'boolean') return typeof v !== 'boolean'
    if (kind === 'array') return !Array.isArray(v)
    return !(typeof v === 'number' && Number.isInteger(v))
  })
}

export const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`

/** Text that is no id at all: signs, exponents, escapes, other digits, separators, thousands of digits. */
export const oddId = fc.oneof(
  fc.constantFrom('abc', '-1', '1e3', '1.0', '+1', ' 1', '1 ', '0x10', '999999999999999999999', '', '%00', '%0A', '1%00', '..%2F..', '%2F', '١٢٣', '1;x', '1?x=1', '1#x', '%20'),
  badEscape,
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.constantFrom(300, 3000).map((n) => '9'.repeat(n)),
)

/** Form encoding of the fields as given (URLSearchParams would turn a lone surrogate into U+FFFD). */
export const formEncodeLoose = (fields: Array<[string, string]>): string => fields.map(([k, v]) => `${encodeLoose(k)}=${encodeLoose(v)}`).join('&')


/**
 * Bytes that are not HTTP: random bytes that end as a request head does, or one of `known` (broken
 * requests a listener must answer or drop). Not blank lines alone: those are no request, and Node
 * closes the connection silently once it times out, ten seconds later.
 */
export const rawBytes = (...known: Buffer[]): fc.Arbitrary<Attempt> =>
  fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 80 }).map((b) => Buffer.concat([Buffer.from(b), Buffer.from('\r\n\r\n')])), fc.constantFrom(...known)).map((raw): Attempt => ({
    aim: 'raw',
    how: `raw bytes ${JSON.stringify(raw.toString('latin1').slice(0, 30))}`,
    method: 'RAW',
    target: '',
    headers: [],
    raw,
    authenticated: false,
    mustRefuse: false,
  }))
