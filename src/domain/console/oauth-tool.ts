import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { parseFormEncoded, serializeForm } from '../../protocol/form.ts'
import { buildOAuthHeader } from '../../protocol/oauth1/auth-header.ts'
import { baseStringUri, buildBaseString, sign } from '../../protocol/oauth1/signature.ts'
import { randomAlphanumeric } from '../../protocol/secrets.ts'
import type { AppRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import { issueOwnerToken } from '../registry/owner-token.ts'

/** What the OAuth tool is asked to sign. */
export interface ToolRequest {
  method: 'GET' | 'POST'
  /** An absolute http(s) URL; its query counts among the parameters. */
  url: string
  /** `name=value` per line (values as typed, not encoded). */
  parameters: string
  /** Sign with the developer's own access token for the app too (user context). */
  withToken: boolean
}

/** The request, signed: what a client would send, and how the signature came about. */
export interface SignedToolRequest {
  baseString: string
  authorization: string
  curl: string
}

const MAX_PARAMETERS = 50

/** The parameters typed, one `name=value` a line; blank lines skipped. */
function typedParameters(text: string): Array<[string, string]> {
  const pairs = text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line): [string, string] => {
      const eq = line.indexOf('=')
      return eq === -1 ? [line.trim(), ''] : [line.slice(0, eq).trim(), line.slice(eq + 1)]
    })
  assertThat(pairs.length <= MAX_PARAMETERS, E.invalidParameter, { message: `at most ${MAX_PARAMETERS} parameters`, field: 'parameters' })
  assertThat(pairs.every(([name]) => name !== '' && (!name.startsWith('oauth_') || CLIENT_OAUTH_PARAMETERS.includes(name))), E.invalidParameter, {
    message: `each line is name=value; of the oauth_ parameters only ${CLIENT_OAUTH_PARAMETERS.join(' and ')} are yours to add`,
    field: 'parameters',
  })
  return pairs
}

/** The protocol parameters a client chooses itself; they go in the Authorization header with the rest. */
const CLIENT_OAUTH_PARAMETERS = ['oauth_callback', 'oauth_verifier']

function parsedUrl(text: string): URL {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    throw new ServiceError(E.invalidParameter, { message: 'the URL must be absolute, like https://api.example.com/1.1/account/verify_credentials.json', field: 'url' })
  }
  assertThat(url.protocol === 'https:' || url.protocol === 'http:', E.invalidParameter, { message: 'the URL must be http or https', field: 'url' })
  assertThat(url.hash === '' && url.username === '' && url.password === '', E.invalidParameter, { message: 'the URL must have no fragment and no user', field: 'url' })
  return url
}

/** A word for a POSIX shell, in single quotes. */
/** `text` as one word of a POSIX shell command line. */
export const shellQuoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`

/**
 * X's OAuth tool, in the developer console: a request of one of the developer's apps (and, if
 * asked, their own access token) signed with HMAC-SHA1 as a client would sign it (RFC 5849 §3.4),
 * with a fresh nonce and the current time. Nothing is sent anywhere: the answer is the signature
 * base string, the Authorization header and a curl command that sends the same request.
 */
export async function signWithTool(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  input: { app: AppRecord; user: UserRecord } & ToolRequest,
): Promise<SignedToolRequest> {
  const url = parsedUrl(input.url)
  const allTyped = typedParameters(input.parameters)
  const typed = allTyped.filter(([name]) => !name.startsWith('oauth_'))
  const token = input.withToken ? (await issueOwnerToken(deps, input.app.id)).token : undefined
  const oauth: Array<[string, string]> = [
    ['oauth_consumer_key', input.app.consumerKey],
    ['oauth_nonce', randomAlphanumeric(32)],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_timestamp', String(Math.floor(deps.clock.nowMs() / 1000))],
    ...(token ? [['oauth_token', token.token] as [string, string]] : []),
    ['oauth_version', '1.0'],
    ...allTyped.filter(([name]) => name.startsWith('oauth_')),
  ]
  // GET sends the typed parameters in the query; POST in a form body. Both are signed (§3.4.1.3.1).
  const query = [...parseFormEncoded(url.search.slice(1)), ...(input.method === 'GET' ? typed : [])]
  const body = input.method === 'POST' ? typed : []
  const baseUri = baseStringUri({ scheme: url.protocol.slice(0, -1), host: url.host, path: url.pathname })
  const baseString = buildBaseString(input.method, baseUri, [...query, ...body, ...oauth])
  const signature = sign('HMAC-SHA1', baseString, input.app.consumerSecret, token?.secret ?? '')
  const authorization = buildOAuthHeader([...oauth, ['oauth_signature', signature]])
  const target = `${url.origin}${url.pathname}${query.length > 0 ? `?${serializeForm(query)}` : ''}`
  const curl = [
    'curl',
    ...(input.method === 'POST' ? ['-X', 'POST'] : []),
    shellQuoted(target),
    '-H',
    shellQuoted(`Authorization: ${authorization}`),
    ...(input.method === 'POST' ? ['--data', shellQuoted(serializeForm(body))] : []),
  ].join(' ')
  return { baseString, authorization, curl }
}
