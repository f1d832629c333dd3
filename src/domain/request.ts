import { parseFormEncoded } from '../protocol/form.ts'
import type { RateLimitedResource } from './rate-limit-table.ts'

/**
 * A request as the use cases read it, framework-free: what the HTTP layer (http/request-input.ts)
 * and a resource server (resource-server.ts) build from any HTTP library. OAuth 1.0a and OAuth 2
 * both read it; neither owns it. `scheme` and `host` are the ones the client saw (the public URL).
 */
export interface RequestInput {
  method: string
  scheme: string
  /** Host with its port when not the default. */
  host: string
  /** The path in its wire form, without the query. */
  path: string
  /** The raw query string without `?` ('' when none). */
  query: string
  authorization: string | undefined
  contentType: string | undefined
  body: Buffer | string | undefined
  /** Whether the request reached the service over HTTPS (itself or at a trusted proxy). */
  isSecure: boolean
  /** The route pattern that received the request (e.g. /oauth/request_token), for the metrics; never the raw path. */
  endpoint?: string
  /** The client's address as the HTTP layer sees it (behind trusted proxies, the forwarded one): for the audit trail and the address's budget. */
  clientAddress?: string
  /**
   * The resource whose budget of failures this address spends, where the route keeps one (rows of
   * rate-limit-table.ts counted by caller or app): while it is spent the call is refused when
   * admitted (rate-limits.ts admitCall); the HTTP layer counts each failure (src/web/plugins/rate-limit.ts).
   */
  addressBudget?: RateLimitedResource | undefined
}

export function isFormEncoded(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.trimStart().toLowerCase().startsWith('application/x-www-form-urlencoded')
}

/** The body as text ('' when there is none). */
export function bodyText(body: Buffer | string | undefined): string {
  if (body === undefined) return ''
  return typeof body === 'string' ? body : body.toString('utf8')
}

/** The query and, for a form body, the body parameters of a request, in that order, repeats kept. */
export function formParams(input: Pick<RequestInput, 'query' | 'contentType' | 'body'>): Array<[string, string]> {
  return [...parseFormEncoded(input.query), ...bodyParams(input)]
}

/** The parameters of a form body only: where secrets are read from (never from the URL, RFC 6749 §2.3.1). */
export function bodyParams(input: Pick<RequestInput, 'contentType' | 'body'>): Array<[string, string]> {
  return isFormEncoded(input.contentType) && input.body !== undefined ? parseFormEncoded(bodyText(input.body)) : []
}

/** The first value of a parameter, or undefined. */
export function param(pairs: Array<[string, string]>, name: string): string | undefined {
  return pairs.find(([n]) => n === name)?.[1]
}
