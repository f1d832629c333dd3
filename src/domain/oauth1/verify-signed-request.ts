import { E, type ErrorDef } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { secretOrDummy } from '../../protocol/secrets.ts'
import { isSignatureMethod, verifySignature, type SignatureMethod } from '../../protocol/oauth1/signature.ts'
import type { AccessTokenRecord, AppRecord, RequestTokenRecord, SignatureFailureReason, UserRecord } from '../../storage/records.ts'
import type { NonceVerdict } from '../../storage/types.ts'
import type { DomainDeps } from '../deps.ts'
import { signedRequestSeen } from '../masked-request.ts'
import { observedStep, type OAuth1VerificationResult } from '../observe.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'
import { admitCall, type Charge } from '../rate-limits.ts'
import type { RequestInput } from '../request.ts'
import { parseSignedRequest, type ParsedOAuthRequest } from './parse-signed-request.ts'
import { appIfKeyWorks } from '../key-grace.ts'

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

/** How much the clocks of two instances sharing one nonce store may differ (at most the skew itself). */
const NONCE_CLOCK_MARGIN_SECONDS = 30

/**
 * Authenticates an OAuth 1.0a request through the stages of CHECKS: it parses (215), passes every
 * credentials check (each runs; the first that fails is the answer), is admitted (its address not
 * blocked, charged, its nonce remembered: one call), then its nonce is unused (32).
 */
export async function verifySignedRequest<K extends TokenKind>(
  deps: Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'observe'>,
  input: RequestInput,
  options: {
    tokenKind: K
    /** The limit the call is charged against once verified (null: the caller charges it, or nothing does). */
    charge: RateLimitedResource | null
    required?: readonly string[]
  },
): Promise<VerifiedRequest<K>> {
  // Positional arguments: no object is made per request for the test mode's event.
  const observed = (result: OAuth1VerificationResult, request?: ParsedOAuthRequest, app?: AppRecord) => {
    deps.observe?.oauth1Verification(input.endpoint ?? 'library', result)
    // Test mode's journal only: outside it the observer has no such method and nothing is computed.
    if (deps.observe?.signedRequest) deps.observe.signedRequest(signedRequestSeen(input, result, { request, app }))
  }
  /** The one refusal: the first of the stage's checks that fails, observed, reported and thrown. */
  function refuseOnFailure<C>(checks: readonly Check<C>[], checked: C, seen: { request?: ParsedOAuthRequest; app?: AppRecord | undefined }, rateLimit?: Charge['limit']): void {
    // Every check runs (a passing request runs them all anyway); the first that fails is the answer.
    const failed = checks.filter((check) => !check.passes(checked))
    const refusal = failed[0]
    if (!refusal) return
    observed(refusal.observedAs, seen.request, seen.app)
    if (refusal.shownAs && seen.request) deps.observe?.signedRequestRefused?.({ input, request: seen.request, app: seen.app, reason: refusal.shownAs })
    const error = typeof refusal.error === 'function' ? refusal.error(checked) : refusal.error
    if (error instanceof ServiceError) throw error
    // For the operator's log only: every check that failed (the client sees just the code).
    throw new ServiceError(error, { detail: refusal.detail ?? `signed request refused: ${failed.map((check) => check.step).join(', ')}`, rateLimit })
  }

  const parsed = parse(input, options.required)
  refuseOnFailure(CHECKS.parse, { parsed }, {})
  const request = parsed as ParsedOAuthRequest
  const nowMs = deps.clock.nowMs()
  const skewSeconds = deps.settings.timestampSkewSeconds
  if (request.timestampSeconds !== undefined) deps.observe?.clockSkew(Math.abs(request.timestampSeconds - nowMs / 1000))

  const isTimely = request.timestampSeconds !== undefined && Math.abs(request.timestampSeconds - nowMs / 1000) <= skewSeconds
  const checkCredentials = async (): Promise<Credentials> => {
    const { app, token, lookedUp } = await lookUpCredentials(deps, options.tokenKind, request.consumerKey, request.token, nowMs)
    const signatureMatches = observedStep(deps.observe, 'oauth1.verify_signature', () => checkSignature(request, app, token.secret))
    const checked = { isTimely, app, token, request, isSecure: input.isSecure, signatureMatches, lookedUp }
    refuseOnFailure(CHECKS.credentials, checked, { request, app })
    return checked
  }
  const first = await checkCredentials()
  let { app, token } = first

  // The call is counted before its nonce is spent, so a request refused by a limit (429) leaves its
  // nonce unspent and can be sent again once the window has passed. A replay gives its count back:
  // whoever captured a request cannot spend the app's budget by replaying it. Only a request that
  // passed every other check spends a nonce, so strangers cannot fill the store. A request stays
  // timely until its timestamp + skew; its nonce is remembered until then, plus a margin for
  // instances whose clocks differ a little.
  const userId = (token.record as AccessTokenRecord | undefined)?.userId
  const isUserContext = options.tokenKind !== 'none' && options.tokenKind !== 'request' && userId !== undefined
  const expiresAtMs = (request.timestampSeconds! + skewSeconds + Math.min(NONCE_CLOCK_MARGIN_SECONDS, skewSeconds)) * 1000
  const use = { consumerKey: request.consumerKey, token: request.token, nonce: request.nonce, timestampSeconds: request.timestampSeconds! }
  const admitted = await admitCall(deps, options.charge, { appId: app!.id, userId: isUserContext ? userId : undefined }, { input, nonce: { use, expiresAtMs, nowMs }, lookedUp: first.lookedUp })
  if (!admitted.lookupIsCurrent) {
    // The cache answered at a generation that has moved: a credential may have ended since. Checked
    // again as a request arriving now would be; a refusal gives the call back (its nonce stays spent).
    ;({ app, token } = await checkCredentials().catch(async (error: unknown) => {
      await admitted.refund()
      throw error
    }))
  }
  refuseOnFailure(CHECKS.nonce, { verdict: admitted.verdict! }, { request, app }, admitted.limit)
  observed('ok', request, app)
  // The conditional type of the answer follows tokenKind, which the compiler cannot relate to lookUpCredentials.
  return { app: app as AppRecord, request, token: token.record, user: token.owner, limit: admitted.limit } as unknown as VerifiedRequest<K>
}

/** The parsed request, or the refusal parsing threw (the parse stage's check answers with it). */
function parse(input: RequestInput, required: readonly string[] | undefined): ParsedOAuthRequest | ServiceError {
  try {
    return parseSignedRequest(input, required)
  } catch (error) {
    if (error instanceof ServiceError) return error
    throw error
  }
}

/** What the credentials checks read, each computed in full whatever the others found (nothing to time). */
interface Credentials {
  isTimely: boolean
  app: AppRecord | undefined
  token: TokenLookup
  request: ParsedOAuthRequest
  isSecure: boolean
  /** The signature, with a dummy secret for an unknown consumer or token. */
  signatureMatches: boolean
  /** The validity cache's answer the app and token came from, when they may be its (the admission confirms it). */
  lookedUp: object | undefined
}

interface Check<C> {
  /** How the operator's log names it. */
  step: string
  passes(checked: C): boolean
  /** What the client gets when this is the first check to fail: a catalogue error, or the stage's own refusal. */
  error: ErrorDef | ((checked: C) => ErrorDef | ServiceError)
  /** The operator's log line, when not the list of the checks that failed. */
  detail?: string
  /** How the metrics name the refusal (src/domain/observe.ts). */
  observedAs: OAuth1VerificationResult
  /** How the developer console names it; a request that did not parse is never kept. */
  shownAs?: SignatureFailureReason
}

/**
 * The verifier's stages, in order. Parsing first: a request that does not parse (215, or a missing
 * parameter's own message) is `malformed`. Then the credentials, in the order of RFC 5849 §3.2 and
 * Twitter's verifier, the first that fails being the answer. An unknown consumer is the root of
 * whatever else fails (its token cannot be its own), but the client hears about a token it named
 * first: 89, as Twitter answers. The method, body hash and signature are a stranger's to get wrong
 * only once the consumer is known. Last, after the charge, the nonce.
 */
const CHECKS = {
  parse: [
    { step: 'parse', passes: (c) => !(c.parsed instanceof ServiceError), error: (c) => c.parsed as ServiceError, observedAs: 'malformed' },
  ] satisfies Check<{ parsed: ParsedOAuthRequest | ServiceError }>[],
  credentials: [
    { step: 'timestamp', passes: (c) => c.isTimely, error: E.timestampOutOfBounds, observedAs: 'timestamp_out_of_bounds', shownAs: 'timestamp_out_of_bounds' },
    {
      step: 'unknown consumer key',
      passes: (c) => c.app !== undefined,
      error: (c) => (c.token.isValid ? E.couldNotAuthenticate : E.invalidOrExpiredToken),
      observedAs: 'unknown_consumer',
      shownAs: 'bad_signature',
    },
    { step: 'suspended app', passes: (c) => c.app?.isSuspended !== true, error: E.suspendedApplication, observedAs: 'suspended', shownAs: 'app_suspended' },
    { step: 'token', passes: (c) => c.token.isValid, error: E.invalidOrExpiredToken, observedAs: 'invalid_token', shownAs: 'token_invalid' },
    { step: 'method', passes: (c) => !c.app || isMethodAllowed(c.request, c.app, c.isSecure), error: E.couldNotAuthenticate, observedAs: 'method_not_allowed', shownAs: 'method_not_allowed' },
    { step: 'body hash', passes: (c) => !c.app || c.request.bodyHashMatches !== false, error: E.couldNotAuthenticate, observedAs: 'bad_signature', shownAs: 'body_hash_mismatch' },
    { step: 'signature', passes: (c) => !c.app || c.signatureMatches, error: E.couldNotAuthenticate, observedAs: 'bad_signature', shownAs: 'bad_signature' },
  ] satisfies Check<Credentials>[],
  nonce: [
    // Signed before the store's epoch (a restart, a Redis that lost its keys): it may be a replay
    // of a request the store has forgotten, so it is refused as untimely.
    {
      step: 'nonce store epoch',
      passes: (c) => c.verdict !== 'before-epoch',
      error: E.timestampOutOfBounds,
      detail: 'signed before the nonce store was complete (restart)',
      observedAs: 'timestamp_out_of_bounds',
      shownAs: 'timestamp_out_of_bounds',
    },
    { step: 'nonce', passes: (c) => c.verdict === 'fresh', error: E.couldNotAuthenticate, detail: 'nonce replayed', observedAs: 'nonce_reused', shownAs: 'nonce_reused' },
  ] satisfies Check<{ verdict: NonceVerdict }>[],
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
): Promise<{ app: AppRecord | undefined; token: TokenLookup; lookedUp?: object }> {
  if ((kind === 'access' || kind === 'access-or-none') && value !== undefined) {
    const found = await deps.stores.credentials.findConsumerWithAccessToken(consumerKey, value)
    const app = appIfKeyWorks(found.app, nowMs)
    const record = found.token
    // A token whose owner is gone acts for no one.
    const isLive = record !== undefined && record.revokedAtMs === null && found.owner !== undefined && !found.owner.isDisabled
    const token = { record, owner: found.owner, secret: secretOrDummy(record?.secret), isValid: isLive && record.appId === app?.id }
    return { app, token, lookedUp: found }
  }
  const app = appIfKeyWorks(await deps.stores.apps.findByConsumerKey(consumerKey), nowMs)
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
  if (value === undefined) return { record: undefined, secret: secretOrDummy(undefined), isValid: false }
  const record = await deps.stores.requestTokens.findByToken(value)
  const isLive = record !== undefined && (record.status === 'issued' || record.status === 'authorized') && record.expiresAtMs > nowMs
  return { record, secret: secretOrDummy(record?.secret), isValid: isLive && record.appId === app?.id }
}

/**
 * The signature with the consumer secret (a dummy's when the consumer is unknown) and the token
 * secret, by the method the request names (HMAC-SHA1 for one that is none, which the method check refuses).
 */
function checkSignature(request: ParsedOAuthRequest, app: AppRecord | undefined, tokenSecret: string): boolean {
  const method: SignatureMethod = isSignatureMethod(request.signatureMethod) ? request.signatureMethod : 'HMAC-SHA1'
  return verifySignature(method, request.baseString, secretOrDummy(app?.consumerSecret), tokenSecret, request.signature)
}

/** The app allows the method, and PLAINTEXT only over TLS. */
function isMethodAllowed(request: ParsedOAuthRequest, app: AppRecord, isSecure: boolean): boolean {
  return (
    isSignatureMethod(request.signatureMethod) &&
    app.signatureMethods.includes(request.signatureMethod) &&
    (request.signatureMethod !== 'PLAINTEXT' || isSecure)
  )
}
