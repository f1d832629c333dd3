// The verifier for API processes: no database, no keyring, no secret of the service — a URL and
// the resource server's own credentials. Each check is POST /latchkey/check-request
// (docs/check-request.md); the service spends nonces and charges limits for every instance.
import { createHash } from 'node:crypto'
import { ServiceError, type RateLimitState } from './errors/service-error.ts'
import type { TokenKind } from './domain/identify-caller.ts'
import type { RevocationEvent } from './domain/revocations/events.ts'
import type { ApiRequest, LatchkeyVerifier, VerifiedCaller } from './resource-server.ts'
import { revocationChannel } from './storage/revocation-types.ts'

export interface RemoteVerifierOptions {
  /** Latchkey's public URL, e.g. https://auth.example.org (the check's path is added). */
  url: string
  /** The consumer key and secret of an app registered as a resource server (`--resource-server`). */
  clientId: string
  clientSecret: string
  /** Count each call against the caller's /latchkey/resource-api limit (its x-rate-limit-* values come back). */
  charge?: boolean
  /**
   * Seconds an answer about a bearer or OAuth 2.0 user token is reused without asking (default 0:
   * always ask). A signed OAuth 1.0a request is never reused: its nonce is spent by each check.
   * Cached answers are dropped at once by `forget`, fed by revocation events.
   */
  cacheSeconds?: number
  /** Milliseconds one check may take before it fails (default 5000). */
  timeoutMs?: number
  /**
   * The deployment's Redis (PostgreSQL + Redis backends): the verifier subscribes to its revocation
   * channel (`<keyPrefix>revocations`) and forgets what it cached of every ended credential. Pub/sub
   * keeps nothing for a subscriber that was away: on every (re)connection the whole cache is dropped.
   */
  redis?: { url: string; keyPrefix?: string }
  fetch?: typeof fetch
}

/** A revocation event as the service pushes it (docs/revocation-push.md): what a cache needs of it. */
export type EndedCredential = Pick<RevocationEvent, 'app_id' | 'user_id'> & { credential?: Partial<RevocationEvent['credential']> | null }

export interface RemoteVerifier extends LatchkeyVerifier {
  /** Who is calling; with `charge`, the caller's limit after this call. */
  verifyWithLimit(request: ApiRequest): Promise<{ caller: VerifiedCaller; rateLimit: RateLimitState | undefined }>
  /** Drops what was cached of an ended credential: every answer of its app and person, and the token itself. */
  forget(ended: EndedCredential): void
}

/** The service could not answer the check (down, unreachable, or the resource server's own credentials refused): not the caller's fault. */
export class RemoteCheckError extends Error {
  override readonly name = 'RemoteCheckError'
}

interface CheckAnswer {
  valid: boolean
  caller?: { token_kind: TokenKind; app_id: string; consumer_key: string; app_name: string; access_level: VerifiedCaller['accessLevel']; user_id?: string; screen_name?: string; scopes?: string[] }
  rate_limit_headers?: Record<string, string>
  refusal?: { status: number; headers: Record<string, string>; body: { errors: Array<{ code: number; message: string }> } }
}

interface Cached {
  caller: VerifiedCaller
  expiresAtMs: number
}

const header = (headers: ApiRequest['headers'], name: string) => {
  const value = headers[name] ?? headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** The bearer token of an Authorization header, the only kind of credential an answer may be reused for. */
const bearerOf = (authorization: string | undefined) => /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1]

export function createRemoteVerifier(options: RemoteVerifierOptions): RemoteVerifier {
  const endpoint = new URL('/latchkey/check-request', options.url).toString()
  const credentials = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`
  const doFetch = options.fetch ?? fetch
  const cache = new Map<string, Cached>()
  let cacheMs = Math.max(0, options.cacheSeconds ?? 0) * 1000
  // Without the channel it was asked to listen to, nothing is reused: an ended credential would be.
  const subscription = options.redis && cacheMs > 0 ? subscribe(options.redis, cache).catch(() => void (cacheMs = 0)) : undefined

  async function ask(request: ApiRequest): Promise<CheckAnswer> {
    const contentType = header(request.headers, 'content-type')
    // Only a form body takes part in a signature; any other body stays with the API.
    const isForm = /^\s*application\/x-www-form-urlencoded/i.test(contentType ?? '') && request.body !== undefined
    const toCheck = {
      method: request.method,
      url: request.url,
      ...optional('authorization', header(request.headers, 'authorization')),
      ...(isForm ? { content_type: contentType, body: typeof request.body === 'string' ? request.body : request.body!.toString('utf8') } : {}),
      ...(options.charge ? { charge: true } : {}),
    }
    let answer: Response
    try {
      answer = await doFetch(endpoint, {
        method: 'POST',
        headers: { authorization: credentials, 'content-type': 'application/json' },
        body: JSON.stringify(toCheck),
        signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
      })
    } catch (error) {
      throw new RemoteCheckError(`the check could not reach ${endpoint}`, { cause: error })
    }
    if (answer.status !== 200) throw new RemoteCheckError(`the check answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`)
    return (await answer.json()) as CheckAnswer
  }

  async function verifyWithLimit(request: ApiRequest) {
    const bearer = bearerOf(header(request.headers, 'authorization'))
    const key = bearer === undefined || options.charge ? undefined : sha256(bearer)
    const cached = key === undefined ? undefined : cache.get(key)
    if (cached && cached.expiresAtMs > Date.now()) return { caller: cached.caller, rateLimit: undefined }
    const answer = await ask(request)
    if (!answer.valid || !answer.caller) throw refusalOf(answer)
    const caller = verifiedCaller(answer.caller)
    if (key !== undefined && cacheMs > 0) cache.set(key, { caller, expiresAtMs: Date.now() + cacheMs })
    return { caller, rateLimit: limitOf(answer.rate_limit_headers) }
  }

  return {
    verifyWithLimit,
    verify: async (request) => (await verifyWithLimit(request)).caller,
    forget: (ended) => forget(cache, ended),
    async close() {
      cache.clear()
      const subscriber = await subscription
      if (subscriber) await subscriber.quit()
    },
  }
}

/** Drops the ended token, and every answer about the app, the person, or the app and person the event names. */
function forget(cache: Map<string, Cached>, ended: EndedCredential): void {
  const appId = ended.app_id ?? undefined
  const userId = ended.user_id ?? undefined
  for (const [key, { caller }] of cache) {
    const isTheToken = ended.credential?.sha256 === key
    const isTheirs = (appId !== undefined || userId !== undefined) && (appId === undefined || caller.appId === appId) && (userId === undefined || caller.userId === userId)
    if (isTheToken || isTheirs) cache.delete(key)
  }
}

/** Subscribes to the deployment's revocation channel; ioredis is loaded only by a verifier that asks for it. */
async function subscribe(redis: NonNullable<RemoteVerifierOptions['redis']>, cache: Map<string, Cached>) {
  const { Redis } = await import('ioredis')
  const subscriber = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: null })
  // What was published while the subscriber was away is lost: start afresh on every connection.
  subscriber.on('ready', () => cache.clear())
  subscriber.on('error', () => {})
  subscriber.on('message', (_channel: string, message: string) => {
    try {
      forget(cache, JSON.parse(message) as EndedCredential)
    } catch {
      cache.clear()
    }
  })
  await subscriber.connect()
  await subscriber.subscribe(revocationChannel(redis.keyPrefix))
  return subscriber
}

const optional = <K extends string>(name: K, value: string | undefined) => (value === undefined ? {} : ({ [name]: value } as Record<K, string>))

function verifiedCaller(caller: NonNullable<CheckAnswer['caller']>): VerifiedCaller {
  return {
    context: caller.user_id === undefined ? 'app' : 'user',
    tokenKind: caller.token_kind,
    appId: caller.app_id,
    consumerKey: caller.consumer_key,
    appName: caller.app_name,
    accessLevel: caller.access_level,
    ...(caller.user_id === undefined ? {} : { userId: caller.user_id, screenName: caller.screen_name }),
    ...(caller.scopes ? { scopes: caller.scopes } : {}),
  }
}

function limitOf(headers: Record<string, string> | undefined): RateLimitState | undefined {
  if (!headers) return undefined
  return { limit: Number(headers['x-rate-limit-limit']), remaining: Number(headers['x-rate-limit-remaining']), resetAtMs: Number(headers['x-rate-limit-reset']) * 1000 }
}

/**
 * A refused caller: a ServiceError with X's status, code and message, as the local verifier throws,
 * and X's whole answer — `headers` (WWW-Authenticate, x-rate-limit-*) and `body` — to pass on as it is.
 */
export class RemoteRefusal extends ServiceError {
  constructor(
    readonly headers: Record<string, string>,
    readonly body: { errors: Array<{ code: number; message: string }> },
    status: number,
  ) {
    const first = body.errors[0]!
    const limit = limitOf(headers['x-rate-limit-limit'] === undefined ? undefined : headers)
    super({ status, code: first.code, message: first.message }, limit ? { rateLimit: limit } : {})
  }
}

function refusalOf(answer: CheckAnswer): RemoteRefusal | RemoteCheckError {
  const refusal = answer.refusal
  if (!refusal?.body.errors[0]) return new RemoteCheckError('the check answered neither a caller nor a refusal')
  return new RemoteRefusal(refusal.headers, refusal.body, refusal.status)
}
