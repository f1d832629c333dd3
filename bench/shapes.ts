import { randomBytes } from 'node:crypto'
import { rawRequest, type Answer } from './http-client.ts'
import { authorization, encode, fastSigner, signParams, tampered, toHeader, type SignInput } from './sign.ts'

/** The credentials the bench registers, as a client holds them. */
export interface BenchCredentials {
  consumerKey: string
  consumerSecret: string
  accessToken: string
  accessTokenSecret: string
  /** Got from POST /oauth2/token by the pre-checks. */
  bearerToken?: string
  /** OAuth 2.0 user context (shapes 7): the app's confidential client and the bench person's grants. */
  oauth2?: OAuth2Credentials
  /** Shape 8: an app registered as a resource server, which checks the bench's signed requests. */
  resourceServer?: { consumerKey: string; consumerSecret: string }
}

export interface OAuth2Credentials {
  clientId: string
  clientSecret: string
  /** Codes of the bench person's consent, made in-process; the pre-checks exchange them for tokens. */
  codes: Array<{ code: string; verifier: string }>
  /** A user access token (shape 7.1), got by the pre-checks. */
  accessToken?: string
  /** One refresh token per connection of shape 7.2, each the head of a chain of its own. */
  refreshTokens?: string[]
}

/** Where the load goes; requests are signed for https://host:port (the TLS proxy's view). */
export interface Target {
  host: string
  port: number
}

export type RequestKind = 'health' | 'verify' | 'bearer' | 'token' | 'requestToken' | 'unknownKey' | 'wrongSignature' | 'userMe' | 'refresh' | 'checkRequest'

export interface Shape {
  title: string
  kind: RequestKind
  /** Target: req/s at least this fraction of the ceiling's (unset: see relativeTo). */
  minRatio?: number
  /** Target: at least this fraction of another shape's ratio. */
  relativeTo?: { shape: string; fraction: number }
  /** Target: p99 at most this multiple of the ceiling's p99. */
  maxP99Factor?: number
}

export const SHAPES = {
  // The floor every route pays (Fastify, the production hooks, the access line), no credentials.
  '0': { title: 'GET /healthz (framework floor)', kind: 'health', minRatio: 0.7, maxP99Factor: 4 },
  '1': { title: 'verify_credentials, OAuth 1.0a, SQLite', kind: 'verify', minRatio: 0.22, maxP99Factor: 4 },
  '2': { title: 'rate_limit_status, Bearer', kind: 'bearer', minRatio: 0.35, maxP99Factor: 4 },
  '3': { title: 'oauth2/token, existing token', kind: 'token', minRatio: 0.3, maxP99Factor: 4 },
  '4': { title: 'request_token (a write)', kind: 'requestToken', minRatio: 0.15, maxP99Factor: 8 },
  '5': { title: '(1) with 1e6 tokens, 1e5 apps', kind: 'verify', relativeTo: { shape: '1', fraction: 0.9 } },
  '6.1': { title: '(1) on PostgreSQL + Redis', kind: 'verify', minRatio: 0.15, maxP99Factor: 8 },
  '6.2': { title: '(2) on PostgreSQL + Redis', kind: 'bearer', minRatio: 0.2, maxP99Factor: 8 },
  '7.1': { title: '/2/users/me, OAuth 2.0 user token', kind: 'userMe', minRatio: 0.55, maxP99Factor: 4 },
  '7.2': { title: '2/oauth2/token, refresh grant (a write)', kind: 'refresh', minRatio: 0.15, maxP99Factor: 8 },
  // A resource server's check of a whole signed request: shape 1's work plus its own client authentication and JSON.
  '8': { title: 'latchkey/check-request, a signed request', kind: 'checkRequest', relativeTo: { shape: '1', fraction: 0.8 }, maxP99Factor: 4 },
} as const satisfies Record<string, Shape>

export type ShapeId = keyof typeof SHAPES

const PROXY = { 'x-forwarded-proto': 'https' }
const FORM = 'application/x-www-form-urlencoded'
const VERIFY_PATH = '/1.1/account/verify_credentials.json'
const STATUS_PATH = '/1.1/application/rate_limit_status.json?resources=application'

const hostOf = (target: Target) => `${target.host}:${target.port}`
const originOf = (target: Target) => `https://${hostOf(target)}`

/** GET verify_credentials with an Authorization header made from the signed parameters. */
export function verifyRequest(target: Target, header: string): string {
  return rawRequest('GET', VERIFY_PATH, { host: hostOf(target), ...PROXY, authorization: header })
}

/** The signing input of a user-context verify_credentials call. */
export function verifySignInput(target: Target, creds: BenchCredentials): SignInput {
  return {
    method: 'GET',
    baseUri: `${originOf(target)}${VERIFY_PATH}`,
    consumer: { key: creds.consumerKey, secret: creds.consumerSecret },
    token: { key: creds.accessToken, secret: creds.accessTokenSecret },
  }
}

const prepared = new WeakMap<BenchCredentials, Map<string, () => string>>()

/** The request maker of `kind` for these credentials and target, laid out on first use. */
function maker(kind: RequestKind, target: Target, creds: BenchCredentials): () => string {
  let byKind = prepared.get(creds)
  if (!byKind) prepared.set(creds, (byKind = new Map()))
  const key = `${kind} ${hostOf(target)}`
  let make = byKind.get(key)
  if (!make) byKind.set(key, (make = layOut(kind, target, creds)))
  return make
}

/** Request text with the Authorization header signed afresh by each call (a constant one for Bearer and Basic). */
function signedEachTime(method: string, path: string, target: Target, input: Omit<SignInput, 'nonce' | 'timestamp'>): () => string {
  const [before, after] = rawRequest(method, path, { host: hostOf(target), ...PROXY, authorization: '\u0000' }).split('\u0000') as [string, string]
  const sign = fastSigner(input)
  return () => `${before}${sign()}${after}`
}

function layOut(kind: RequestKind, target: Target, creds: BenchCredentials): () => string {
  const host = hostOf(target)
  const consumer = { key: creds.consumerKey, secret: creds.consumerSecret }
  switch (kind) {
    case 'health': {
      const text = rawRequest('GET', '/healthz', { host, ...PROXY })
      return () => text
    }
    case 'verify':
      return signedEachTime('GET', VERIFY_PATH, target, verifySignInput(target, creds))
    case 'requestToken': {
      const input = { method: 'POST', baseUri: `${originOf(target)}/oauth/request_token`, consumer, oauth: [['oauth_callback', 'oob']] as Array<[string, string]> }
      return signedEachTime('POST', '/oauth/request_token', target, input)
    }
    case 'bearer': {
      if (!creds.bearerToken) throw new Error('no bearer token (the pre-checks get one)')
      const text = rawRequest('GET', STATUS_PATH, { host, ...PROXY, authorization: `Bearer ${creds.bearerToken}` })
      return () => text
    }
    case 'token': {
      const basic = Buffer.from(`${encode(creds.consumerKey)}:${encode(creds.consumerSecret)}`).toString('base64')
      const headers = { host, ...PROXY, authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }
      const text = rawRequest('POST', '/oauth2/token', headers, 'grant_type=client_credentials')
      return () => text
    }
    case 'userMe': {
      const token = creds.oauth2?.accessToken
      if (!token) throw new Error('no user access token (the pre-checks get one)')
      const text = rawRequest('GET', '/2/users/me', { host, ...PROXY, authorization: `Bearer ${token}` })
      return () => text
    }
    case 'checkRequest':
      return checkRequestMaker(target, creds)
    case 'refresh':
      throw new Error('a refresh chain carries each answer into the next request: use requestSession')
    case 'unknownKey':
      // A consumer nobody registered (as long as real keys), with a real access token; signed the slow, plain way.
      return () => {
        const stranger = { ...creds, consumerKey: randomBytes(13).toString('hex').slice(0, 25) }
        return verifyRequest(target, authorization(verifySignInput(target, stranger)))
      }
    case 'wrongSignature':
      return () => verifyRequest(target, toHeader(tampered(signParams(verifySignInput(target, creds)))))
  }
}

/** POST /latchkey/check-request of a verify_credentials call signed afresh each time, as a resource server passes it on. */
function checkRequestMaker(target: Target, creds: BenchCredentials): () => string {
  const server = creds.resourceServer
  if (!server) throw new Error('no resource server (registerBench makes one)')
  const input = { ...verifySignInput(target, creds), baseUri: `https://api.bench.example${VERIFY_PATH}` }
  const sign = fastSigner(input)
  const basic = Buffer.from(`${encode(server.consumerKey)}:${encode(server.consumerSecret)}`).toString('base64')
  const headers = { host: hostOf(target), ...PROXY, authorization: `Basic ${basic}`, 'content-type': 'application/json' }
  return () => rawRequest('POST', '/latchkey/check-request', headers, JSON.stringify({ method: 'GET', url: input.baseUri, authorization: sign() }))
}

/** A fresh request of `kind`: a new nonce and the current timestamp for the signed ones. */
export function buildRequest(kind: RequestKind, target: Target, creds: BenchCredentials): string {
  return maker(kind, target, creds)()
}

/** The Basic header of the bench app's OAuth 2.0 client. */
export const clientBasic = (oauth2: OAuth2Credentials) => `Basic ${Buffer.from(`${oauth2.clientId}:${oauth2.clientSecret}`).toString('base64')}`

/** The refresh grant's request for `refreshToken`. */
export function refreshRequest(target: Target, oauth2: OAuth2Credentials, refreshToken: string): string {
  const headers = { host: hostOf(target), ...PROXY, authorization: clientBasic(oauth2), 'content-type': FORM }
  return rawRequest('POST', '/2/oauth2/token', headers, `grant_type=refresh_token&refresh_token=${refreshToken}`)
}

/** What one connection sends: `request` gives each request; `answered` sees each answer that was 2xx. */
export interface RequestSession {
  request(): string
  answered?(answer: Answer): void
  /** The refresh chain's current token (shape 7.2 only), to carry on in the next run. */
  refreshToken?(): string
}

/**
 * The requests of connection `index`: a fresh request of `kind` each time (credentials picked anew
 * each time); for the refresh grant, a chain of its own, each answer's refresh token in the next
 * request (a spent one would be a reuse, which ends the grant).
 */
export function requestSession(kind: RequestKind, target: Target, pick: () => BenchCredentials, index: number): RequestSession {
  if (kind !== 'refresh') return { request: () => buildRequest(kind, target, pick()) }
  const oauth2 = pick().oauth2
  let token = oauth2?.refreshTokens?.[index]
  if (!oauth2 || !token) throw new Error(`no refresh token for connection ${index} (the pre-checks get one per connection)`)
  return {
    request: () => refreshRequest(target, oauth2, token!),
    answered(answer) {
      token = /"refresh_token":"([A-Za-z0-9]+)"/.exec(answer.body)?.[1] ?? token
    },
    refreshToken: () => token!,
  }
}
