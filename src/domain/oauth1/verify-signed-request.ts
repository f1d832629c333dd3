import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { randomAlphanumeric } from '../../protocol/secrets.ts'
import { isSignatureMethod, verifySignature, type SignatureMethod } from '../../protocol/oauth1/signature.ts'
import type { AccessTokenRecord, AppRecord, RequestTokenRecord, UserRecord } from '../../storage/records.ts'
import { noteSignatureFailure, type SignatureFailureReason } from '../console/signature-failures.ts'
import type { DomainDeps } from '../deps.ts'
import { observedStep, type OAuth1VerificationResult } from '../observe.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'
import { chargeCall, type Charge } from '../rate-limits.ts'
import type { RequestInput } from '../request.ts'
import { parseSignedRequest, type ParsedOAuthRequest } from './parse-signed-request.ts'

/**
 * Which token a request must be signed with: none (request_token), a request token, an access
 * token, or an access token when one is named (API routes that also take app-only calls).
 */
export type TokenKind = 'none' | 'request' | 'access' | 'access-or-none'

/** The token a request was signed with and, for an access token, the person it acts for. */
type SignedWith<K extends TokenKind> = K extends 'request'
  ? { token: RequestTokenRecord; user: undefined }
  : K extends 'access'
    ? { token: AccessTokenRecord; user: UserRecord }
    : K extends 'access-or-none'
      ? { token: AccessTokenRecord; user: UserRecord } | { token: undefined; user: undefined }
      : { token: undefined; user: undefined }

export type VerifiedRequest<K extends TokenKind = TokenKind> = {
  app: AppRecord
  request: ParsedOAuthRequest
  /** The state of the limit the call was charged against (undefined when not charged). */
  limit: Charge['limit']
} & SignedWith<K>

interface TokenLookup {
  record: RequestTokenRecord | AccessTokenRecord | undefined
  /** The access token's owner, found with it. */
  owner?: UserRecord | undefined
  secret: string
  isValid: boolean
}

// Stand-ins for unknown consumers and tokens: the same work is done for them as for real ones,
// and the decision is taken at the end, so answers reveal nothing by timing (oauthlib's dummies).
const DUMMY_SECRET_LENGTH = 50

/** How much the clocks of two instances sharing one nonce store may differ (at most the skew itself). */
const NONCE_CLOCK_MARGIN_SECONDS = 30
const dummySecret = () => randomAlphanumeric(DUMMY_SECRET_LENGTH)

/**
 * Authenticates an OAuth 1.0a request, in the order of RFC 5849 §3.2 and Twitter's verifier:
 * parse (215), timestamp window (135), consumer known and not suspended (416), token known, of the
 * right kind, this consumer's, live and (an access token) its owner still there (89), signature,
 * method and body hash (32), nonce unused (32). Every check runs; the answer is the first failure
 * in that order.
 */
export async function verifySignedRequest<K extends TokenKind>(
  deps: Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'observe' | 'signatureFailures'>,
  input: RequestInput,
  options: {
    tokenKind: K
    /** The limit the call is charged against once verified (null: the caller charges it, or nothing does). */
    charge: RateLimitedResource | null
    required?: readonly string[]
  },
): Promise<VerifiedRequest<K>> {
  const observed = (result: OAuth1VerificationResult) => deps.observe?.oauth1Verification(input.endpoint ?? 'library', result)
  const request = parseOrObserve(input, options.required, observed)
  const nowMs = deps.clock.nowMs()
  const skewSeconds = deps.settings.timestampSkewSeconds
  if (request.timestampSeconds !== undefined) deps.observe?.clockSkew(Math.abs(request.timestampSeconds - nowMs / 1000))

  const isTimely = request.timestampSeconds !== undefined && Math.abs(request.timestampSeconds - nowMs / 1000) <= skewSeconds
  const { app, token } = await lookUpCredentials(deps, options.tokenKind, request.consumerKey, request.token, nowMs)
  const isSignatureValid = observedStep(deps.observe, 'oauth1.verify_signature', () => checkSignature(request, app, token.secret, input.isSecure))

  // The first failure in the order of the checks (the function's comment).
  const failure = !isTimely
    ? E.timestampOutOfBounds
    : app?.isSuspended === true
      ? E.suspendedApplication
      : !token.isValid
        ? E.invalidOrExpiredToken
        : !app || !isSignatureValid
          ? E.couldNotAuthenticate
          : undefined
  if (failure) {
    const cause = refusalCause(isTimely, app, token.isValid, request, input.isSecure)
    observed(OBSERVED_AS[cause])
    // For the operator's log only: which checks failed (the client sees just the code).
    const failed = [!isTimely && 'timestamp', !app && 'unknown consumer key', app?.isSuspended && 'suspended app', !token.isValid && 'token', app && !isSignatureValid && 'signature, method or body hash']
    noteSignatureFailure(deps, { input, request, app, reason: SHOWN_AS[cause] })
    throw new ServiceError(failure, { detail: `signed request refused: ${failed.filter(Boolean).join(', ')}` })
  }

  // The call is counted before its nonce is spent, so a request refused by a limit (429) leaves its
  // nonce unspent and can be sent again once the window has passed. A replay gives its count back:
  // whoever captured a request cannot spend the app's budget by replaying it.
  const userId = (token.record as AccessTokenRecord | undefined)?.userId
  const isUserContext = options.tokenKind !== 'none' && options.tokenKind !== 'request' && userId !== undefined
  const charge = options.charge === null ? NOT_CHARGED : await chargeCall(deps, options.charge, { appId: app!.id, userId: isUserContext ? userId : undefined })
  // Only a request that passed every other check spends a nonce, so strangers cannot fill the store.
  // A request stays timely until its timestamp + skew; its nonce is remembered until then, plus a
  // margin for instances whose clocks differ a little.
  const expiresAtMs = (request.timestampSeconds! + skewSeconds + Math.min(NONCE_CLOCK_MARGIN_SECONDS, skewSeconds)) * 1000
  const use = { consumerKey: request.consumerKey, token: request.token, nonce: request.nonce, timestampSeconds: request.timestampSeconds! }
  const verdict = await deps.stores.nonces.remember(use, expiresAtMs, nowMs).catch(async (error: unknown) => {
    await charge.refund()
    throw error
  })
  if (verdict !== 'fresh') {
    await charge.refund()
    // Signed before the store's epoch (a restart, a Redis that lost its keys): it may be a replay
    // of a request the store has forgotten, so it is refused as untimely.
    if (verdict === 'before-epoch') {
      observed('timestamp_out_of_bounds')
      noteSignatureFailure(deps, { input, request, app, reason: 'timestamp_out_of_bounds' })
      throw new ServiceError(E.timestampOutOfBounds, { detail: 'signed before the nonce store was complete (restart)', rateLimit: charge.limit })
    }
    observed('nonce_reused')
    noteSignatureFailure(deps, { input, request, app, reason: 'nonce_reused' })
    throw new ServiceError(E.couldNotAuthenticate, { detail: 'nonce replayed', rateLimit: charge.limit })
  }
  observed('ok')
  // The conditional type of the answer follows tokenKind, which the compiler cannot relate to lookUpCredentials.
  return { app: app as AppRecord, request, token: token.record, user: token.owner, limit: charge.limit } as unknown as VerifiedRequest<K>
}

const NOT_CHARGED: Charge = { limit: undefined, refund: async () => {} }

/** A request that does not parse is `malformed` to the observer; its error goes on to the client. */
function parseOrObserve(input: RequestInput, required: readonly string[] | undefined, observed: (result: 'malformed') => void): ParsedOAuthRequest {
  try {
    return parseSignedRequest(input, required)
  } catch (error) {
    observed('malformed')
    throw error
  }
}

/** Why a signed request was refused, at its root: an unknown consumer first (its token cannot be its own). */
type RefusalCause = 'timestamp' | 'unknown_consumer' | 'suspended' | 'token' | 'method' | 'body_hash' | 'signature'

function refusalCause(isTimely: boolean, app: AppRecord | undefined, isTokenValid: boolean, request: ParsedOAuthRequest, isSecure: boolean): RefusalCause {
  if (!isTimely) return 'timestamp'
  if (!app) return 'unknown_consumer'
  if (app.isSuspended) return 'suspended'
  if (!isTokenValid) return 'token'
  if (!isMethodAllowed(request, app, isSecure)) return 'method'
  return request.bodyHashMatches === false ? 'body_hash' : 'signature'
}

/** The cause as the metrics name it (src/domain/observe.ts). */
const OBSERVED_AS: Record<RefusalCause, OAuth1VerificationResult> = {
  timestamp: 'timestamp_out_of_bounds',
  unknown_consumer: 'unknown_consumer',
  suspended: 'suspended',
  token: 'invalid_token',
  method: 'method_not_allowed',
  body_hash: 'bad_signature',
  signature: 'bad_signature',
}

/**
 * The cause as the developer console names it (the client only ever sees the code). A refusal of an
 * unknown consumer belongs to no app and is never kept (noteSignatureFailure).
 */
const SHOWN_AS: Record<RefusalCause, SignatureFailureReason> = {
  timestamp: 'timestamp_out_of_bounds',
  unknown_consumer: 'bad_signature',
  suspended: 'app_suspended',
  token: 'token_invalid',
  method: 'method_not_allowed',
  body_hash: 'body_hash_mismatch',
  signature: 'bad_signature',
}

/**
 * The consumer and the token the request names. An access token comes with the consumer and its
 * owner in one statement (one round trip instead of two); that statement runs the same whichever
 * of them exist, as does every other path here.
 */
async function lookUpCredentials(
  deps: Pick<DomainDeps, 'stores'>,
  kind: TokenKind,
  consumerKey: string,
  value: string | undefined,
  nowMs: number,
): Promise<{ app: AppRecord | undefined; token: TokenLookup }> {
  if ((kind === 'access' || kind === 'access-or-none') && value !== undefined) {
    const found = await deps.stores.credentials.findConsumerWithAccessToken(consumerKey, value)
    const record = found.token
    // A token whose owner is gone acts for no one.
    const isLive = record !== undefined && record.revokedAtMs === null && found.owner !== undefined && !found.owner.isDisabled
    const token = { record, owner: found.owner, secret: record?.secret ?? dummySecret(), isValid: isLive && record.appId === found.app?.id }
    return { app: found.app, token }
  }
  const app = await deps.stores.apps.findByConsumerKey(consumerKey)
  return { app, token: await lookUpToken(deps, kind, value, app, nowMs) }
}

/** The token of every other request: none, a request token, or an access token left unnamed. */
async function lookUpToken(
  deps: Pick<DomainDeps, 'stores'>,
  kind: TokenKind,
  value: string | undefined,
  app: AppRecord | undefined,
  nowMs: number,
): Promise<TokenLookup> {
  if (kind === 'none' || kind === 'access-or-none') return { record: undefined, secret: '', isValid: true }
  if (value === undefined) return { record: undefined, secret: dummySecret(), isValid: false }
  const record = await deps.stores.requestTokens.findByToken(value)
  const isLive = record !== undefined && (record.status === 'issued' || record.status === 'authorized') && record.expiresAtMs > nowMs
  return { record, secret: record?.secret ?? dummySecret(), isValid: isLive && record.appId === app?.id }
}

/**
 * The signature with the consumer secret (a dummy's when the consumer is unknown) and the token
 * secret; false as well when the app does not allow the method, when PLAINTEXT arrives without
 * TLS, or when oauth_body_hash does not match the body.
 */
function checkSignature(request: ParsedOAuthRequest, app: AppRecord | undefined, tokenSecret: string, isSecure: boolean): boolean {
  const method: SignatureMethod = isSignatureMethod(request.signatureMethod) ? request.signatureMethod : 'HMAC-SHA1'
  const matches = verifySignature(method, request.baseString, app?.consumerSecret ?? dummySecret(), tokenSecret, request.signature)
  return matches && isMethodAllowed(request, app, isSecure) && request.bodyHashMatches !== false
}

/** The app allows the method, and PLAINTEXT only over TLS. */
function isMethodAllowed(request: ParsedOAuthRequest, app: AppRecord | undefined, isSecure: boolean): boolean {
  return (
    isSignatureMethod(request.signatureMethod) &&
    app !== undefined &&
    app.signatureMethods.includes(request.signatureMethod) &&
    (request.signatureMethod !== 'PLAINTEXT' || isSecure)
  )
}
