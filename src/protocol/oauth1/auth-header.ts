import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { percentDecode, percentEncode } from './percent-encode.ts'

function malformed(why: string): never {
  throw new ServiceError(E.badAuthenticationData, { detail: `Authorization header: ${why}` })
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t'

/**
 * Parses `Authorization: OAuth …` (RFC 5849 §3.5.1) into decoded pairs, header order kept; undefined
 * when there is no header or its scheme is not OAuth. Tolerant like Twitter's verifier (any order,
 * `,`/`, `/` ,` separators, unquoted values, `realm` dropped); malformed or a name twice throws 215.
 */
export function parseOAuthHeader(header: string | undefined): Array<[string, string]> | undefined {
  if (header === undefined) return undefined
  const text = header.trim()
  const schemeEnd = text.search(/\s/)
  const scheme = schemeEnd === -1 ? text : text.slice(0, schemeEnd)
  if (scheme.toLowerCase() !== 'oauth') return undefined

  const pairs: Array<[string, string]> = []
  const seen = new Set<string>()
  const n = text.length
  let i = scheme.length
  const skipSpaces = (): void => {
    while (isSpace(text[i])) i++
  }
  const skipSeparators = (): void => {
    while (isSpace(text[i]) || text[i] === ',') i++
  }

  // One pass, left to right: name OWS "=" OWS (quoted | bare) value, then OWS and "," or the end.
  skipSeparators()
  while (i < n) {
    const nameStart = i
    while (i < n && !isSpace(text[i]) && text[i] !== '=' && text[i] !== ',' && text[i] !== '"') i++
    const rawName = text.slice(nameStart, i)
    if (rawName === '') malformed(`expected a parameter name at ${i}`)
    skipSpaces()
    if (text[i] !== '=') malformed(`no "=" after ${rawName}`)
    i++
    skipSpaces()
    let rawValue: string
    if (text[i] === '"') {
      const close = text.indexOf('"', i + 1)
      if (close === -1) malformed(`unterminated quoted value for ${rawName}`)
      rawValue = text.slice(i + 1, close)
      i = close + 1
    } else {
      const valueStart = i
      while (i < n && !isSpace(text[i]) && text[i] !== ',' && text[i] !== '"') i++
      rawValue = text.slice(valueStart, i)
    }
    skipSpaces()
    if (i < n && text[i] !== ',') malformed(`expected "," after ${rawName}`)
    skipSeparators()

    const name = percentDecode(rawName)
    // realm is not a signed parameter (RFC 5849 §3.4.1.3.1); its value is not percent-encoded.
    if (name.toLowerCase() === 'realm') continue
    if (seen.has(name)) malformed(`${name} appears twice`)
    seen.add(name)
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
