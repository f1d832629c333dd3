// Forward auth (docs/forward-auth.md): the client's request as a reverse proxy describes it in the
// headers of its check call (nginx's auth_request, Caddy's forward_auth, Traefik's ForwardAuth).
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import type { RequestInput } from '../domain/request.ts'

type Headers = Record<string, string | string[] | undefined>

/** What the check call itself says when the proxy names nothing: its method, the listener's scheme, its Host. */
export interface CallOrigin {
  method: string
  scheme: string
  host: string | undefined
}

/** The two families of names proxies use for the original request, in the order they are read. */
const METHOD_HEADERS = ['x-original-method', 'x-forwarded-method'] as const
const URI_HEADERS = ['x-original-uri', 'x-forwarded-uri'] as const

/**
 * A header's value, undefined when absent or empty; a header sent several times gives its last, and
 * with `isList` a list (`a, b`) its last entry: the nearest proxy's. (A URI may hold a comma.)
 */
function lastEntry(headers: Headers, name: string, isList = true): string | undefined {
  const value = headers[name]
  const text = Array.isArray(value) ? value.at(-1) : value
  if (text === undefined) return undefined
  const entry = (isList ? text.slice(text.lastIndexOf(',') + 1) : text).trim()
  return entry === '' ? undefined : entry
}

/**
 * The value of whichever of two names is present. When both are and they differ, the proxy set one
 * and passed the client's own other one through: the client would choose what is checked, so the
 * call is refused.
 */
function eitherOf(headers: Headers, names: readonly [string, string]): string | undefined {
  const [first, second] = names.map((name) => lastEntry(headers, name, false))
  if (first !== undefined && second !== undefined && first !== second) {
    throw proxyMistake(`${names[0]} and ${names[1]} disagree: the proxy must set both or remove the one it does not set`)
  }
  return first ?? second
}

const proxyMistake = (reason: string) => new ServiceError(E.badRequest, { message: `Forward auth: ${reason}.`, detail: `forward auth: ${reason}` })

/**
 * The original request of a forward-auth call: method from X-Original-Method or X-Forwarded-Method
 * (else the call's own), path and query from X-Original-URI or X-Forwarded-Uri (required), host
 * from X-Forwarded-Host, else X-Original-Host, else the call's Host, scheme from X-Forwarded-Proto,
 * else the listener's. The credential and the content type are the client's own headers, which
 * every proxy passes on; the body never travels, so there is none. Only a trusted proxy's call may
 * be read this way (the route checks that first).
 */
export function forwardedRequestInput(headers: Headers, call: CallOrigin): RequestInput {
  const uri = eitherOf(headers, URI_HEADERS)
  if (uri === undefined) throw proxyMistake('the proxy sent neither X-Original-URI nor X-Forwarded-Uri')
  if (!uri.startsWith('/')) throw proxyMistake('the original URI must be a path that starts with /')
  const method = eitherOf(headers, METHOD_HEADERS) ?? call.method
  const host = lastEntry(headers, 'x-forwarded-host') ?? lastEntry(headers, 'x-original-host') ?? call.host
  if (host === undefined) throw proxyMistake('the proxy sent no host (X-Forwarded-Host)')
  const scheme = (lastEntry(headers, 'x-forwarded-proto') ?? call.scheme).toLowerCase()
  const q = uri.indexOf('?')
  return {
    method: method.toUpperCase(),
    scheme,
    host,
    path: q === -1 ? uri : uri.slice(0, q),
    query: q === -1 ? '' : uri.slice(q + 1),
    authorization: single(headers.authorization),
    contentType: single(headers['content-type']),
    body: undefined,
    isSecure: scheme === 'https',
  }
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)
