// What of a signed request may be shown to its app's developer (the console's failure log) and to a
// test (the test mode's journal): every name, and only the values of harmless parameters.
import { percentEncode } from '../protocol/oauth1/percent-encode.ts'
import { parseOAuthHeader } from '../protocol/oauth1/auth-header.ts'
import { parseFormEncoded } from '../protocol/form.ts'
import type { AppRecord } from '../storage/records.ts'
import type { OAuth1VerificationResult, SignedRequestSeen } from './observe.ts'
import type { ParsedOAuthRequest } from './oauth1/parse-signed-request.ts'
import { bodyText, isFormEncoded, type RequestInput } from './request.ts'

/**
 * The parameters whose values the failure log keeps: the OAuth parameters that authenticate nothing
 * (the consumer key is public, the nonce and timestamp are spent once), and the options of the
 * signed endpoints Latchkey serves (`x_auth_access_type`, `include_entities`, `skip_status`,
 * `include_email`, `resources`), whose values a developer compares with their own. Every other
 * value is hidden, whatever its name (`code`, `api_key`, `session`, `oauth_callback`, whose query may
 * carry the client's own state): a name no one listed cannot leak. The names are always kept.
 */
export const VALUES_KEPT: ReadonlySet<string> = new Set([
  'oauth_consumer_key',
  'oauth_nonce',
  'oauth_timestamp',
  'oauth_signature_method',
  'oauth_version',
  'x_auth_access_type',
  'include_entities',
  'skip_status',
  'include_email',
  'resources',
])

/** What a hidden value reads as, in the URL and in the base string. */
export const HIDDEN = '[hidden]'
const HIDDEN_ENCODED = percentEncode(HIDDEN)

function isValueKept(encodedName: string): boolean {
  try {
    return VALUES_KEPT.has(decodeURIComponent(encodedName.replaceAll('+', ' ')))
  } catch {
    return false
  }
}

/** `a=1&b=2` (each side percent-encoded) with every value hidden but those of VALUES_KEPT. */
function hideValues(pairs: string): string {
  return pairs
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const name = equals < 0 ? pair : pair.slice(0, equals)
      return equals >= 0 && !isValueKept(name) ? `${name}=${HIDDEN_ENCODED}` : pair
    })
    .join('&')
}

/** The URL the client called, its query values hidden but those of VALUES_KEPT. */
export function maskedUrl(input: Pick<RequestInput, 'scheme' | 'host' | 'path' | 'query'>): string {
  return `${input.scheme}://${input.host}${input.path}${input.query ? `?${hideValues(input.query)}` : ''}`
}

/**
 * The signature base string (RFC 5849 §3.4.1: `METHOD&enc(URI)&enc(normalized parameters)`) with
 * every value hidden but those of VALUES_KEPT: what a developer compares with their own, less
 * what someone reading the log could use.
 */
export function maskedBaseString(baseString: string): string {
  const [method, uri, parameters = ''] = baseString.split('&')
  try {
    return `${method}&${uri}&${percentEncode(hideValues(decodeURIComponent(parameters)))}`
  } catch {
    return `${method}&${uri}&${HIDDEN_ENCODED}`
  }
}

/** The names of a request's parameters by where they came from, each list once per name and without values. */
export interface ParameterPlaces {
  header: string[]
  query: string[]
  body: string[]
}

/**
 * The names of the request's parameters by where they came from, without any value: a client that
 * signs the query but sends the body, or the reverse, shows here. Read again from the request (the
 * verifier keeps no sources): this runs only for a refusal, or in test mode for the journal.
 */
export function parameterPlaces(input: RequestInput): ParameterPlaces {
  // A name is the client's text: no control character goes on (PostgreSQL refuses NUL).
  // eslint-disable-next-line no-control-regex
  const names = (pairs: Array<[string, string]>) => [...new Set(pairs.map(([name]) => name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd')))]
  const readable = (read: () => Array<[string, string]> | undefined) => {
    try {
      return names(read() ?? [])
    } catch {
      return []
    }
  }
  return {
    header: readable(() => parseOAuthHeader(input.authorization)),
    query: readable(() => parseFormEncoded(input.query)),
    body: isFormEncoded(input.contentType) ? readable(() => parseFormEncoded(bodyText(input.body))) : [],
  }
}

/** parameterPlaces as the failure log writes it: `header: a, b; query: c; body: d`. */
export function parameterSources(input: RequestInput): string {
  const places = parameterPlaces(input)
  return (['header', 'query', 'body'] as const)
    .filter((place) => places[place].length > 0)
    .map((place) => `${place}: ${places[place].join(', ')}`)
    .join('; ')
    .slice(0, MAX_PARAMETERS_TEXT)
}

/** The parameters' description is cut here: a real request's names take a few hundred characters. */
const MAX_PARAMETERS_TEXT = 1000

/** What the test mode's journal is told of a judged signed request (DomainObserver.signedRequest), masked here. */
export function signedRequestSeen(input: RequestInput, result: OAuth1VerificationResult, judged: { request?: ParsedOAuthRequest | undefined; app?: AppRecord | undefined } = {}): SignedRequestSeen {
  return {
    result,
    app: judged.app && { id: judged.app.id, consumerKey: judged.app.consumerKey },
    parameters: parameterPlaces(input),
    baseString: judged.request && maskedBaseString(judged.request.baseString),
  }
}
