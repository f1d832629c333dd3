/**
 * What the domain tells whoever watches it (the metrics, in the server): outcomes, never values.
 * Every argument is one of a few fixed words or a number; none is a token, key, id or address,
 * but in the events about one signed request, heard only by the console's failure log (which masks
 * them) and the test mode's journal. Without an observer the domain has only the failure log's.
 */
import type { AppRecord, SignatureFailureReason } from '../storage/records.ts'
import type { ValidityCacheResult } from '../storage/types.ts'
import type { ParameterPlaces } from './masked-request.ts'
import type { ParsedOAuthRequest } from './oauth1/parse-signed-request.ts'
import type { RequestInput } from './request.ts'

export type OAuth1VerificationResult =
  | 'ok'
  | 'unknown_consumer'
  | 'bad_signature'
  | 'timestamp_out_of_bounds'
  | 'nonce_reused'
  | 'invalid_token'
  | 'method_not_allowed'
  | 'suspended'
  | 'malformed'

export type BearerVerificationResult = 'ok' | 'invalid_token' | 'malformed'

/** `user_access_token` and `refresh_token` are OAuth 2.0 user context's (a refresh makes one of each). */
export type IssuedTokenKind = 'request_token' | 'access_token' | 'bearer_token' | 'admin_token' | 'authorization_code' | 'user_access_token' | 'refresh_token'

/**
 * Why a token stopped working: its holder asked (invalidate_token, or revoke for OAuth 2.0 user
 * context), an administrator revoked it, or a spent refresh token or code was presented again and
 * its whole grant ended (refresh_reuse, RFC 9700 §4.14).
 */
export type InvalidationReason = 'invalidate_token' | 'admin' | 'revoke' | 'refresh_reuse'

/** Whose budget ran out: the app's, a person's within an app, a client address's, or the sign-in throttle. */
export type LimitedSubject = 'app' | 'user' | 'address' | 'sign_in'

export type SignInResult = 'ok' | 'wrong_password' | 'refused' | 'throttled'

/** Why a refused request did not reach its app's failure log: too many writes pending, or the write failed. */
export type LostFailureReason = 'dropped' | 'write_failed'

/**
 * A signed request as the verifier judged it, for the test mode's request journal: values masked as
 * the failure log masks them (VALUES_KEPT), the base string with every other value `[hidden]`.
 */
export interface SignedRequestSeen {
  result: OAuth1VerificationResult
  /** The app the consumer key names; undefined when it names none or the request did not parse. */
  app: { id: string; consumerKey: string } | undefined
  parameters: ParameterPlaces
  /** The base string Latchkey computed, masked; undefined when the request did not parse. */
  baseString: string | undefined
}

/** A signed request the verifier refused once it had parsed, with what it saw (values unmasked: the subscriber masks them). */
export interface RefusedSignedRequest {
  input: RequestInput
  request: ParsedOAuthRequest
  /** The app the consumer key names; undefined when it names none. */
  app: AppRecord | undefined
  /** How the developer console names the refusal. */
  reason: SignatureFailureReason
}

export interface DomainObserver {
  /** `endpoint` is the route pattern of the request (a fixed set), or `library` for the resource-server verifier. */
  oauth1Verification(endpoint: string, result: OAuth1VerificationResult): void
  bearerVerification(result: BearerVerificationResult): void
  /** |oauth_timestamp − now| in seconds, for accepted and refused requests alike. */
  clockSkew(seconds: number): void
  tokenIssued(kind: IssuedTokenKind): void
  tokenInvalidated(kind: IssuedTokenKind, reason: InvalidationReason): void
  /** `resource` is the rate-limit table's resource (e.g. /oauth/request_token). */
  rateLimited(resource: string, subject: LimitedSubject): void
  signIn(result: SignInResult): void
  /** A signature failure that its app's developer will not see in the console (signature-failures.ts). */
  signatureFailureLost(reason: LostFailureReason): void
  /** A lookup of a verified request, and who answered it (src/storage/validity-cache.ts). */
  validityCacheLookup(result: ValidityCacheResult): void
  /**
   * Test mode only (the request journal, src/web/test-kit/journal.ts): every signed request the
   * verifier judged, its values masked; absent elsewhere, so nothing of it
   * is computed outside test mode.
   */
  signedRequest?(seen: SignedRequestSeen): void
  /** A signed request the verifier refused: the console's failure log subscribes (src/composition/root.ts). */
  signedRequestRefused?(refused: RefusedSignedRequest): void
  /**
   * Test mode only (the request journal): the app an OAuth 2.0 call authenticated as (client
   * credentials, a bearer token, a user token), once it did. Absent elsewhere.
   */
  callerApp?(appId: string, consumerKey: string): void
  /** Runs a step of the work inside a trace span of its own (only when tracing is on). */
  step?<T>(name: string, work: () => T): T
}

/** An observer that listens to nothing, for a subscriber to one event where no observer is given. */
export const UNOBSERVED: DomainObserver = {
  oauth1Verification() {},
  bearerVerification() {},
  clockSkew() {},
  tokenIssued() {},
  tokenInvalidated() {},
  rateLimited() {},
  signIn() {},
  signatureFailureLost() {},
  validityCacheLookup() {},
}

/** `work`, as a traced step when the observer traces. */
export function observedStep<T>(observe: DomainObserver | undefined, name: string, work: () => T): T {
  return observe?.step ? observe.step(name, work) : work()
}

/** The subject kind of a limitSubject key (`app:…`, `user:…`, `addr:…`). */
export function limitedSubjectOf(key: string): LimitedSubject {
  if (key.startsWith('user:')) return 'user'
  if (key.startsWith('addr:')) return 'address'
  return 'app'
}
