import { createHmac } from 'node:crypto'
import OAuth from 'oauth-1.0a'

/**
 * Signs requests with the independent `oauth-1.0a` library (not our own core), with knobs for the
 * cases a test needs to get wrong on purpose: timestamp, nonce, method, version, placement.
 */
export interface SignOptions {
  consumer: { key: string; secret: string }
  token?: { key: string; secret: string }
  method?: string
  /** Full URL, query included (the query is signed). */
  url: string
  /** Form body parameters (signed, sent as application/x-www-form-urlencoded). */
  body?: Record<string, string>
  /** Extra oauth_ parameters such as oauth_callback or oauth_verifier (signed, sent in the header). */
  oauth?: Record<string, string>
  signatureMethod?: 'HMAC-SHA1' | 'HMAC-SHA256' | 'PLAINTEXT'
  timestamp?: number
  nonce?: string
  /** oauth_version to send (oauth-1.0a always sends one). */
  version?: string
  realm?: string
  /** More request headers (X-Forwarded-For...), not signed. */
  extraHeaders?: Record<string, string>
}

export interface SignedHttpRequest {
  method: string
  url: string
  headers: Record<string, string>
  body: string | undefined
  /** The oauth_ parameters that were signed, signature included. */
  oauthParams: Record<string, string>
}

function hashFunction(method: string) {
  if (method === 'HMAC-SHA256') return (base: string, key: string) => createHmac('sha256', key).update(base).digest('base64')
  if (method === 'PLAINTEXT') return (_base: string, key: string) => key
  return (base: string, key: string) => createHmac('sha1', key).update(base).digest('base64')
}

export function formEncode(params: Record<string, string>): string {
  return new URLSearchParams(params).toString()
}

export function signRequest(options: SignOptions): SignedHttpRequest {
  const signatureMethod = options.signatureMethod ?? 'HMAC-SHA1'
  const oauth = new OAuth({
    consumer: options.consumer,
    signature_method: signatureMethod,
    hash_function: hashFunction(signatureMethod),
    version: options.version ?? '1.0',
    ...(options.realm ? { realm: options.realm } : {}),
  })
  if (options.timestamp !== undefined) oauth.getTimeStamp = () => options.timestamp as number
  if (options.nonce !== undefined) oauth.getNonce = () => options.nonce as string
  const method = options.method ?? 'POST'
  const data = { ...options.body, ...options.oauth }
  const authorized = oauth.authorize({ url: options.url, method, data }, options.token) as unknown as Record<string, string>
  const oauthParams = { ...authorized, ...options.oauth }
  const header = oauth.toHeader(oauthParams as unknown as OAuth.Authorization)
  const headers: Record<string, string> = { ...options.extraHeaders, authorization: header.Authorization }
  let body: string | undefined
  if (options.body) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = formEncode(options.body)
  }
  return { method, url: options.url, headers, body, oauthParams }
}

export interface HttpAnswer {
  status: number
  headers: Headers
  text: string
  /** The parsed JSON body, when the answer is JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers of many shapes; each asserts its own
  json: any
  /** The parsed form body, when the answer is form-encoded. */
  form: Record<string, string>
}

export interface HttpRequest {
  method: string
  url: string
  headers?: Record<string, string>
  body?: string
}

/** How a request reaches the service: over a socket (fetch), or through Fastify's inject (test-app.ts). */
export type Transport = (request: HttpRequest) => Promise<Response>

/** Over a real socket, redirects not followed. */
export const overSocket: Transport = (request) => fetch(request.url, { method: request.method, headers: request.headers, body: request.body, redirect: 'manual' })

export async function send(request: HttpRequest, transport: Transport = overSocket): Promise<HttpAnswer> {
  const response = await transport(request)
  const text = await response.text()
  const type = response.headers.get('content-type') ?? ''
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: type.includes('json') && text ? JSON.parse(text) : undefined,
    form: type.includes('x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(text)) : {},
  }
}

/** Signs with oauth-1.0a and sends (over the socket unless another transport is given). */
export function signedFetch(options: SignOptions, transport?: Transport): Promise<HttpAnswer> {
  return send(signRequest(options), transport)
}

/** The service's first error code, or undefined. */
export const errorCode = (answer: HttpAnswer): number | undefined => answer.json?.errors?.[0]?.code
