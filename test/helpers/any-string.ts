import fc from 'fast-check'

// Strings of any code points but lone surrogates: what fc.string({ unit: 'binary' }) draws. That
// arbitrary maps all 1.1 million code points up front (about a second of CPU and 100 MB in each
// process that builds it), which every mutation-testing run of src/protocol paid again; this one is
// built from an integer and costs nothing up front.
const SURROGATES = 0xe000 - 0xd800
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff - SURROGATES }).map((n) => String.fromCodePoint(n < 0xd800 ? n : n + SURROGATES))

/** Any string of code points (no lone surrogates), as fc.string({ unit: 'binary', ...lengths }). */
export const anyString = (lengths: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> =>
  fc.array(anyCodePoint, lengths).map((units) => units.join(''))
