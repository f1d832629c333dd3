import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { percentDecode, percentEncode } from './percent-encode.ts'

function malformed(why: string): never {
  throw new ServiceError(E.badAuthenticationData, { detail: `Authorization header: ${why}` })
}

/** The scheme `OAuth` in any case, then whitespace or the end (RFC 7235 §2.1; any JavaScript `\s`, as always). */
const OAUTH_SCHEME = /^oauth(?:\s|$)/i
/** Commas and spaces (SP and HTAB: RFC 7230 §3.2.3 OWS) between parameters. */
const SEPARATORS = /[ \t,]*/y
/**
 * One parameter: name OWS "=" OWS, then a quoted value or a bare one, then OWS and a comma or the
 * end. A name or bare value stops at a space, tab, `=`, `,` or `"`.
 */
const PARAMETER = /([^ \t=,"]+)[ \t]*=[ \t]*(?:"([^"]*)"|([^ \t,"]*))[ \t]*(?=,|$)/y

/**
 * Parses `Authorization: OAuth …` (RFC 5849 §3.5.1) into decoded pairs, header order kept; undefined
 * when there is no header or its scheme is not OAuth. Tolerant like Twitter's verifier (any order,
 * `,`/`, `/` ,` separators, unquoted values, `realm` dropped); malformed or a name twice throws 215.
 */
export function parseOAuthHeader(header: string | undefined): Array<[string, string]> | undefined {
  if (header === undefined) return undefined
  const text = header.trim()
  if (!OAUTH_SCHEME.test(text)) return undefined

  const pairs: Array<[string, string]> = []
  const seen = new Set<string>()
  let position = 'oauth'.length
  for (;;) {
    SEPARATORS.lastIndex = position
    SEPARATORS.exec(text)
    position = SEPARATORS.lastIndex
    if (position === text.length) return pairs
    PARAMETER.lastIndex = position
    const match = PARAMETER.exec(text)
    if (!match) malformed(`expected name="value" at ${position}`)
    position = PARAMETER.lastIndex
    const [, rawName, quoted, bare] = match
    const name = percentDecode(rawName!)
    // realm is not a signed parameter (RFC 5849 §3.4.1.3.1); its value is not percent-encoded.
    if (name.toLowerCase() === 'realm') continue
    if (seen.has(name)) malformed(`${name} appears twice`)
    seen.add(name)
    pairs.push([name, percentDecode(quoted ?? bare!)])
  }
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
