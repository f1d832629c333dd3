import { E, type ErrorDef } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { randomAlphanumeric } from '../../protocol/secrets.ts'
import { isSignatureMethod, verifySignature, type SignatureMethod } from '../../protocol/oauth1/signature.ts'
import type { AccessTokenRecord, AppRecord, RequestTokenRecord, UserRecord } from '../../storage/records.ts'
import { noteSignatureFailure, type SignatureFailureReason } from '../console/signature-failures.ts'
import type { DomainDeps } from '../deps.ts'
import { countCall, limitSubject } from '../rate-limits.ts'
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

export type VerifiedRequest<K extends TokenKind = TokenKind> = { app: AppRecord; request: ParsedOAuthRequest } & SignedWith<K>

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

/** How much the clocks of two instances sharing one nonce store may differ. */
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
  deps: Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'signatureFailures'>,
  input: RequestInput,
  options: { tokenKind: K; required?: readonly string[] },
): Promise<VerifiedRequest<K>> {
  const request = parseSignedRequest(input, options.required)
  const nowMs = deps.clock.nowMs()
  const skewSeconds = deps.settings.timestampSkewSeconds

  const isTimely = request.timestampSeconds !== undefined && Math.abs(request.timestampSeconds - nowMs / 1000) <= skewSeconds
  const { app, token } = await lookUpCredentials(deps, options.tokenKind, request.consumerKey, request.token, nowMs)
  const isSignatureValid = checkSignature(request, app, token.secret, input.isSecure)

  const failure = firstFailure([
    [!isTimely, E.timestampOutOfBounds],
    [app?.isSuspended === true, E.suspendedApplication],
    [!token.isValid, E.invalidOrExpiredToken],
    [!app || !isSignatureValid, E.couldNotAuthenticate],
  ])
  if (failure) {
    // For the operator's log only: which checks failed (the client sees just the code).
    const failed = [!isTimely && 'timestamp', !app && 'unknown consumer key', app?.isSuspended && 'suspended app', !token.isValid && 'token', app && !isSignatureValid && 'signature, method or body hash']
    await noteSignatureFailure(deps, { input, request, app, reason: failureReason(failure, request, app, input.isSecure) })
    throw new ServiceError(failure, { detail: `signed request refused: ${failed.filter(Boolean).join(', ')}` })
  }

  // The call is counted before its nonce is spent, so a request refused by a limit (429) leaves its
  // nonce unspent and can be sent again once the window has passed. A replay gives its count back:
  // whoever captured a request cannot spend the app's budget by replaying it.
  const userId = (token.record as AccessTokenRecord | undefined)?.userId
  const isUserContext = options.tokenKind !== 'none' && options.tokenKind !== 'request' && userId !== undefined
  const refund = await countCall(deps, input.rateLimit, isUserContext ? limitSubject.user(app!.id, userId) : limitSubject.app(app!.id))
  // Only a request that passed every other check spends a nonce, so strangers cannot fill the store.
  // A request stays timely until its timestamp + skew (up to 2 × skew from now when it was stamped
  // ahead of us); its nonce is remembered until then, plus a margin for instances whose clocks
  // differ a little. A client with a good clock so costs one window of skew, not two.
  const rememberSeconds = request.timestampSeconds! + skewSeconds - nowMs / 1000 + NONCE_CLOCK_MARGIN_SECONDS
  const isFresh = await deps.stores.nonces.remember(request.consumerKey, request.nonce, rememberSeconds, nowMs)
  if (!isFresh) {
    await refund()
    await noteSignatureFailure(deps, { input, request, app, reason: 'nonce_reused' })
    throw new ServiceError(E.couldNotAuthenticate, { detail: 'nonce replayed' })
  }
  // The conditional type of the answer follows tokenKind, which the compiler cannot relate to lookUpCredentials.
  return { app: app as AppRecord, request, token: token.record, user: token.owner } as unknown as VerifiedRequest<K>
}

/** The failed check as the developer console names it (the client only ever sees the code). */
function failureReason(failure: ErrorDef, request: ParsedOAuthRequest, app: AppRecord | undefined, isSecure: boolean): SignatureFailureReason {
  if (failure === E.timestampOutOfBounds) return 'timestamp_out_of_bounds'
  if (failure === E.suspendedApplication) return 'app_suspended'
  if (failure === E.invalidOrExpiredToken) return 'token_invalid'
  if (!isMethodAllowed(request, app, isSecure)) return 'method_not_allowed'
  return request.bodyHashMatches === false ? 'body_hash_mismatch' : 'bad_signature'
}

function firstFailure(checks: Array<[boolean, ErrorDef]>): ErrorDef | undefined {
  return checks.find(([failed]) => failed)?.[1]
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
