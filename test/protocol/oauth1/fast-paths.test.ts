// The parsing and encoding functions against independent references written another way (a
// character scan for the header, a per-source loop for the parameters, a sort written out): the
// table-driven fast versions were checked against these until issue 12 made the plain versions the
// code, so equal results here mean behaviour unchanged. Where the reference throws, the function
// must throw 215.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { parseOAuthHeader } from '../../../src/protocol/oauth1/auth-header.ts'
import { parseFormEncoded } from '../../../src/protocol/form.ts'
import { collectParameters } from '../../../src/protocol/oauth1/parameters.ts'
import { percentDecode, percentEncode } from '../../../src/protocol/oauth1/percent-encode.ts'
import { buildBaseString, normalizeParameters, sign, verifySignature } from '../../../src/protocol/oauth1/signature.ts'
import { constantTimeEqual, equalOfPublicLength } from '../../../src/protocol/secrets.ts'
import { propertyRuns } from '../../helpers/property-runs.ts'
import { anyString } from '../../helpers/any-string.ts'
import { is215 } from '../../helpers/bad-auth-data.ts'

type Pairs = Array<[string, string]>

// --- The references --------------------------------------------------------------------------

function referenceEncode(value: string): string {
  if (/^[A-Za-z0-9\-._~]*$/.test(value)) return value
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

function referenceDecode(value: string, plusAsSpace = false): string {
  const text = plusAsSpace ? value.replaceAll('+', ' ') : value
  if (!text.includes('%')) return text
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) throw new Error('malformed')
  return decodeURIComponent(text)
}

function referenceHeader(header: string | undefined): Pairs | undefined {
  if (header === undefined) return undefined
  const text = header.trim()
  const schemeEnd = text.search(/\s/)
  const scheme = schemeEnd === -1 ? text : text.slice(0, schemeEnd)
  if (scheme.toLowerCase() !== 'oauth') return undefined
  const pairs: Pairs = []
  const seen = new Set<string>()
  const isSpace = (c: string | undefined) => c === ' ' || c === '\t'
  let i = scheme.length
  while (isSpace(text[i]) || text[i] === ',') i++
  while (i < text.length) {
    const nameStart = i
    while (i < text.length && !isSpace(text[i]) && !'=,"'.includes(text[i]!)) i++
    const rawName = text.slice(nameStart, i)
    if (rawName === '') throw new Error('no name')
    while (isSpace(text[i])) i++
    if (text[i] !== '=') throw new Error('no =')
    i++
    while (isSpace(text[i])) i++
    let rawValue: string
    if (text[i] === '"') {
      const close = text.indexOf('"', i + 1)
      if (close === -1) throw new Error('unterminated')
      rawValue = text.slice(i + 1, close)
      i = close + 1
    } else {
      const valueStart = i
      while (i < text.length && !isSpace(text[i]) && text[i] !== ',' && text[i] !== '"') i++
      rawValue = text.slice(valueStart, i)
    }
    while (isSpace(text[i])) i++
    if (i < text.length && text[i] !== ',') throw new Error('no ,')
    while (isSpace(text[i]) || text[i] === ',') i++
    const name = referenceDecode(rawName)
    if (name.toLowerCase() === 'realm') continue
    if (seen.has(name)) throw new Error('twice')
    seen.add(name)
    pairs.push([name, referenceDecode(rawValue)])
  }
  return pairs
}

function referenceBaseString(method: string, uri: string, pairs: Pairs): string {
  const normalized = pairs
    .map(([name, value]): [string, string] => [referenceEncode(name), referenceEncode(value)])
    .sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
  return `${method.toUpperCase()}&${referenceEncode(uri)}&${referenceEncode(normalized)}`
}

function referenceCollect(sources: { header: Pairs | undefined; query: Pairs; body: Pairs }) {
  const protocol = new Map<string, string>()
  const signed: Pairs = []
  for (const pairs of [sources.header ?? [], sources.query, sources.body]) {
    const seenHere = new Set<string>()
    for (const [name, value] of pairs) {
      if (!name.startsWith('oauth_')) {
        signed.push([name, value])
        continue
      }
      if (seenHere.has(name)) throw new Error('repeated')
      seenHere.add(name)
      const earlier = protocol.get(name)
      if (earlier === undefined) {
        protocol.set(name, value)
        if (name !== 'oauth_signature') signed.push([name, value])
      } else if (earlier !== value) {
        throw new Error('differs')
      }
    }
  }
  return { protocol, signed }
}

/** Both give the same value, or the reference throws and `actual` throws 215. */
function sameOutcome<T>(actual: () => T, reference: () => T, label: string): void {
  let expected: T
  try {
    expected = reference()
  } catch {
    assert.throws(actual, is215, `${label}: the reference throws`)
    return
  }
  assert.deepEqual(actual(), expected, label)
}

// --- Generators ------------------------------------------------------------------------------

const HEX = [...'0123456789abcdefABCDEF']
const octet = fc.integer({ min: 0, max: 255 }).map((b) => b.toString(16).padStart(2, '0'))
/** Text full of what the shortcuts look for: escapes (valid, lower-case, of non-ASCII octets, broken), `+`, non-ASCII, surrogates. */
const tricky = fc
  .array(
    fc.oneof(
      fc.constantFrom('a', 'Z', '0', '-', '.', '_', '~', '+', ' ', '%', '=', ',', '"', '\t', '&', '!', '*', "'", '(', ')'),
      fc.constantFrom('é', '中', '😀', '\uD800', '\uDFFF', '\u0000', '\u00A0', '\uFEFF', '\u2028'),
      octet.map((h) => `%${h}`),
      octet.map((h) => `%${h.toUpperCase()}`),
      fc.constantFrom(...HEX).map((h) => `%${h}`),
      fc.constantFrom('%C3%A9', '%c3%a9', '%E4%B8%AD', '%F0%9F%98%80', '%ED%A0%80', '%C0%AF', '%F4%90%80%80', '%25', '%2B', '%2b'),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''))
const anyText = fc.oneof(tricky, anyString({ maxLength: 12 }), fc.string({ maxLength: 12 }))
/** Text that has a UTF-8 form (no lone surrogate), as every decoded value does. */
const wellFormed = anyText.filter((value) => {
  try {
    encodeURIComponent(value)
    return true
  } catch {
    return false
  }
})

// --- Properties ------------------------------------------------------------------------------

describe('percentEncode and percentDecode agree with the plain implementations', () => {
  test('percentEncode: any string, lone surrogates included', () => {
    fc.assert(
      fc.property(anyText, (value) => sameOutcome(() => percentEncode(value), () => referenceEncode(value), value)),
      { numRuns: propertyRuns(3000) },
    )
  })

  test('percentDecode: any string, with and without the form rule for +', () => {
    fc.assert(
      fc.property(anyText, fc.boolean(), (value, plusAsSpace) =>
        sameOutcome(() => percentDecode(value, { plusAsSpace }), () => referenceDecode(value, plusAsSpace), value),
      ),
      { numRuns: propertyRuns(3000) },
    )
  })

  test('percentDecode: every escape of one and two octets, both cases of hex', () => {
    for (let a = 0; a < 256; a++) {
      const first = a.toString(16).padStart(2, '0')
      for (const hex of [first, first.toUpperCase()]) {
        sameOutcome(() => percentDecode(`x%${hex}`), () => referenceDecode(`x%${hex}`), hex)
      }
      for (let b = 0; b < 256; b++) {
        const value = `%${first.toUpperCase()}%${b.toString(16).padStart(2, '0')}y`
        sameOutcome(() => percentDecode(value), () => referenceDecode(value), value)
      }
    }
  })
})

describe('parseOAuthHeader agrees with the plain implementation', () => {
  const piece = fc.oneof(anyText, fc.constantFrom('OAuth ', 'oauth', 'realm', 'REALM', '="', '"', ', ', ',', ' , ', '=', 'oauth_token'))
  test('on headers made of the characters its scanner stops at', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), fc.constantFrom('OAuth ', 'oauth\t', '', 'OAuth', ' OAUTH  '), (parts, start) => {
        const header = start + parts.join('')
        sameOutcome(() => parseOAuthHeader(header), () => referenceHeader(header), header)
      }),
      { numRuns: propertyRuns(3000) },
    )
  })

  test('on well-formed headers of arbitrary names and values', () => {
    const pairs = fc.array(fc.tuple(wellFormed, wellFormed), { maxLength: 20 })
    fc.assert(
      fc.property(pairs, fc.constantFrom(', ', ',', ' ,'), fc.boolean(), (params, separator, quoted) => {
        const items = params.map(([n, v]) => `${percentEncode(n)}=${quoted ? `"${percentEncode(v)}"` : percentEncode(v)}`)
        const header = `OAuth ${items.join(separator)}`
        sameOutcome(() => parseOAuthHeader(header), () => referenceHeader(header), header)
      }),
      { numRuns: propertyRuns(1000) },
    )
  })

  test('on the scheme followed by each whitespace character JavaScript knows, or another', () => {
    for (let c = 0; c < 0x10000; c++) {
      const header = `OAuth${String.fromCharCode(c)}oauth_token="t"`
      sameOutcome(() => parseOAuthHeader(header), () => referenceHeader(header), `U+${c.toString(16)}`)
    }
  })
})

describe('the base string and the collected parameters agree with the plain implementations', () => {
  const pairs = fc.array(fc.tuple(fc.oneof(anyText, fc.constantFrom('a', 'a-b', 'a.b', 'oauth_x', '')), anyText), {
    maxLength: 24,
  })
  test('buildBaseString and normalizeParameters, few pairs and many (both sorts)', () => {
    fc.assert(
      fc.property(fc.constantFrom('GET', 'post'), fc.constantFrom('https://h/p', 'http://h:8080/a%20b/é'), pairs, (method, uri, list) => {
        sameOutcome(() => buildBaseString(method, uri, list), () => referenceBaseString(method, uri, list), JSON.stringify(list))
        sameOutcome(
          () => normalizeParameters(list),
          () => decodeURIComponent(referenceBaseString('GET', '', list).slice(5)),
          JSON.stringify(list),
        )
      }),
      { numRuns: propertyRuns(1500) },
    )
  })

  test('collectParameters, with repeats within and across sources', () => {
    const name = fc.constantFrom('oauth_token', 'oauth_nonce', 'oauth_signature', 'oauth_callback', 'a', 'b')
    const value = fc.constantFrom('1', '2', '')
    const source = fc.array(fc.tuple(name, value), { maxLength: 5 })
    fc.assert(
      fc.property(fc.option(source, { nil: undefined }), source, source, (header, query, body) => {
        const sources = { header, query, body }
        sameOutcome(
          () => {
            const { protocol, signed } = collectParameters(sources)
            return { protocol: [...protocol], signed }
          },
          () => {
            const { protocol, signed } = referenceCollect(sources)
            return { protocol: [...protocol], signed }
          },
          JSON.stringify(sources),
        )
      }),
      { numRuns: propertyRuns(3000) },
    )
  })
})

// --- Edge cases of the shortcuts, by name ----------------------------------------------------

describe('the edge cases of the shortcuts', () => {
  test('a value that needs encoding only after a long unreserved run, or only at its last character', () => {
    assert.equal(percentEncode(`${'a'.repeat(40)} `), `${'a'.repeat(40)}%20`)
    assert.equal(percentEncode(`${'a'.repeat(40)}é`), `${'a'.repeat(40)}%C3%A9`)
    assert.equal(percentEncode('~-._!'), '~-._%21')
    assert.equal(percentEncode('*a'), '%2Aa')
    assert.equal(percentEncode('a😀b'), 'a%F0%9F%98%80b')
    assert.equal(percentEncode('\u07FF\u0800\uFFFF'), '%DF%BF%E0%A0%80%EF%BF%BF')
    assert.equal(percentEncode('\uDBFF\uDFFF'), '%F4%8F%BF%BF')
    for (const bad of ['\uD800', 'a\uDC00', '\uDC00\uD800', `${'a'.repeat(40)}\uD83D`]) {
      assert.throws(() => percentEncode(bad), is215, bad)
    }
  })

  test('percent sequences with lower-case hex decode, and are written upper-case again', () => {
    assert.equal(percentDecode('%2f%2F%c3%a9'), '//é')
    assert.equal(percentEncode(percentDecode('a%2fb')), 'a%2Fb')
    // An escape of an unreserved character decodes to it and is not escaped again.
    assert.equal(percentEncode(percentDecode('%41%7e')), 'A~')
  })

  test('+ is a space in form text only, %2B is always +, and both mix with non-ASCII escapes', () => {
    assert.deepEqual(parseFormEncoded('a=1+2%2B3&b+c=%C3%A9+x+%2b'), [
      ['a', '1 2+3'],
      ['b c', 'é x +'],
    ])
    assert.equal(percentDecode('+%C3%A9+'), '+é+')
    assert.equal(percentDecode('+%C3%A9+', { plusAsSpace: true }), ' é ')
    assert.equal(percentDecode('+++', { plusAsSpace: true }), '   ')
    // A bad escape after a non-ASCII one is still a malformed escape, not a UTF-8 error.
    assert.throws(() => percentDecode('%C3%A9+%G1', { plusAsSpace: true }), is215)
    assert.throws(() => percentDecode('a+%', { plusAsSpace: true }), is215)
  })

  test('empty names and values', () => {
    assert.equal(percentEncode(''), '')
    assert.equal(percentDecode(''), '')
    assert.equal(percentDecode('', { plusAsSpace: true }), '')
    assert.deepEqual(parseFormEncoded('=&a=&=b'), [
      ['', ''],
      ['a', ''],
      ['', 'b'],
    ])
    assert.equal(normalizeParameters([['', ''], ['a', ''], ['', 'b']]), '=&=b&a=')
    assert.equal(buildBaseString('GET', 'http://h/', [['', '']]), 'GET&http%3A%2F%2Fh%2F&%3D')
  })

  test('repeated parameters sort by encoded value, the same pair twice kept twice', () => {
    const list: Pairs = [['a', 'é'], ['a', 'z'], ['a', '%'], ['a', 'z'], ['A', '1'], ['a b', '']]
    assert.equal(normalizeParameters(list), 'A=1&a=%25&a=%C3%A9&a=z&a=z&a%20b=')
    assert.equal(buildBaseString('GET', 'http://h/', list), referenceBaseString('GET', 'http://h/', list))
    // More pairs than the insertion sort takes, in reverse order.
    const many: Pairs = Array.from({ length: 40 }, (_, i): [string, string] => [`k${String(39 - i).padStart(2, '0')}`, `${i % 3}`])
    assert.equal(buildBaseString('GET', 'http://h/', many), referenceBaseString('GET', 'http://h/', many))
  })

  test('a header name given twice is refused past the point where repeats are looked up in a Set', () => {
    const names = Array.from({ length: 30 }, (_, i) => `x${i}`)
    const header = (list: string[]) => `OAuth ${list.map((n) => `${n}="v"`).join(', ')}`
    assert.equal(parseOAuthHeader(header(names))?.length, 30)
    for (const at of [1, 15, 16, 17, 29]) {
      assert.throws(() => parseOAuthHeader(header([...names.slice(0, at), 'x0', ...names.slice(at)])), is215, String(at))
    }
    assert.throws(() => parseOAuthHeader(header([...names, 'x%32%39'])), is215)
  })

  test('a non-ASCII or escaped parameter name in the header', () => {
    assert.deepEqual(parseOAuthHeader('OAuth %C3%A9="%C3%A9", r%65alm="x", oauth_token="t"'), [
      ['é', 'é'],
      ['oauth_token', 't'],
    ])
    assert.throws(() => parseOAuthHeader('OAuth %C3="x"'), is215)
  })
})

describe('signature comparison', () => {
  test('equalOfPublicLength is true only for identical strings', () => {
    assert.equal(equalOfPublicLength('abc=', 'abc='), true)
    assert.equal(equalOfPublicLength('', ''), true)
    assert.equal(equalOfPublicLength('abc=', 'abd='), false)
    assert.equal(equalOfPublicLength('abc=', 'abc'), false)
    assert.equal(equalOfPublicLength('abc', 'abc='), false)
    // Same length in UTF-16 code units, different bytes: never equal, never a throw.
    assert.equal(equalOfPublicLength('ab', 'aé'), false)
    assert.equal(equalOfPublicLength('a\uD800', 'a\uDFFF'), false)
    assert.equal(equalOfPublicLength('AA', '\u0141A'), false)
  })

  test('an HMAC signature is refused when it differs only in a way a lax comparison would miss', () => {
    const base = 'GET&http%3A%2F%2Fh%2F&a%3D1'
    for (const method of ['HMAC-SHA1', 'HMAC-SHA256'] as const) {
      const good = sign(method, base, 'cs', 'ts')
      assert.equal(verifySignature(method, base, 'cs', 'ts', good), true)
      // base64url, no padding, padding doubled, a non-ASCII character whose low byte is the original's.
      const lax = [
        good.replaceAll('+', '-').replaceAll('/', '_'),
        good.replace(/=+$/, ''),
        `${good}=`,
        `${String.fromCharCode(good.charCodeAt(0) + 0x100)}${good.slice(1)}`,
        ` ${good.slice(1)}`,
      ].filter((variant) => variant !== good)
      for (const variant of lax) assert.equal(verifySignature(method, base, 'cs', 'ts', variant), false, variant)
    }
  })

  test('PLAINTEXT, whose signature is the secrets, still compares through constantTimeEqual', () => {
    const key = sign('PLAINTEXT', '', 'a&b c', 'é')
    assert.equal(key, 'a%26b%20c&%C3%A9')
    assert.equal(verifySignature('PLAINTEXT', 'x', 'a&b c', 'é', key), true)
    assert.equal(verifySignature('PLAINTEXT', 'x', 'a&b c', 'é', `${key}x`), false)
    assert.equal(verifySignature('PLAINTEXT', 'x', 'a&b c', 'é', key.slice(0, -1)), false)
    assert.equal(constantTimeEqual(key, key), true)
  })
})
