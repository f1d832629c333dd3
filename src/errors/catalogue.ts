/**
 * Every error Latchkey emits, as a table. Codes and messages are Twitter's where Twitter has the
 * code (shared/spec/twitter-behaviour.md §1.1); docs/errors.md lists the same table for humans.
 */
export interface ErrorDef {
  readonly status: number
  readonly code: number
  readonly message: string
  /** Twitter's extra field on the oauth2/* endpoints. */
  readonly label?: string
  /** OAuth 2.0 user context (`/2/oauth2/*`): the RFC 6749 §5.2 error code its `{"error"}` body carries. */
  readonly oauth2?: string
  /** API v2 (`/2/users/me`): the problem document's title and type (X's `{"title","type","status","detail"}`). */
  readonly problem?: { readonly title: string; readonly type: string }
}

/** A row of the catalogue: HTTP status, code, message, and what else the entry names. */
function entry(status: number, code: number, message: string, more: Pick<ErrorDef, 'label' | 'oauth2' | 'problem'> = {}): ErrorDef {
  return { status, code, message, ...more }
}

export const E = {
  couldNotAuthenticate: entry(401, 32, 'Could not authenticate you.'),
  pageNotFound: entry(404, 34, 'Sorry, that page does not exist'),
  rateLimitExceeded: entry(429, 88, 'Rate limit exceeded'),
  invalidOrExpiredToken: entry(401, 89, 'Invalid or expired token.'),
  sslRequired: entry(403, 92, 'SSL is required'),
  unableToVerifyCredentials: entry(403, 99, 'Unable to verify your credentials', { label: 'authenticity_token_error' }),
  overCapacity: entry(503, 130, 'Over capacity'),
  internalError: entry(500, 131, 'Internal error'),
  timestampOutOfBounds: entry(401, 135, 'Timestamp out of bounds.'),
  missingGrantType: entry(403, 170, 'Missing required parameter: grant_type'),
  badAuthenticationData: entry(400, 215, 'Bad Authentication data.'),
  credentialsDoNotAllowResource: entry(403, 220, 'Your credentials do not allow access to this resource.'),
  callbackNotApproved: entry(403, 415, 'Callback URL not approved for this client application. Approved callback URLs can be adjusted in your application settings'),
  suspendedApplication: entry(401, 416, 'Invalid / suspended application'),
  desktopOnlyOob: entry(401, 417, "Desktop applications only support the oauth_callback value 'oob'"),
  // Latchkey's own codes (1000 and up), for cases Twitter has no code for.
  badRequest: entry(400, 1000, 'Bad request.'),
  methodNotAllowed: entry(405, 1001, 'Method not allowed for this resource.'),
  requestTooLarge: entry(413, 1002, 'Request too large.'),
  invalidParameter: entry(400, 1003, 'A parameter is invalid.'),
  notFound: entry(404, 1004, 'No such record.'),
  headersTooLarge: entry(431, 1005, 'Request headers too large.'),
  urlTooLong: entry(414, 1006, 'Request URL too long.'),
  requestTimeout: entry(408, 1007, 'Request took too long to arrive.'),
  alreadyExists: entry(409, 1008, 'A record with this name already exists.'),
  credentialUnreadable: entry(403, 1009, 'This credential cannot be read by the service: its stored secret is damaged or sealed under a master key the service does not hold. Ask the operator.', { oauth2: 'invalid_client' }),
  forwardAuthUntrusted: entry(403, 1010, 'Only a reverse proxy named in --trust-proxy may call this endpoint.'),
  // The browser step's own codes (1100 and up): shown to people on HTML pages, so written for them.
  requestTokenMissing: entry(400, 1100, 'This link has no request token. Go back to the app and start again.'),
  requestTokenUnknown: entry(404, 1101, 'This link is not valid. Go back to the app and start again.'),
  requestTokenExpired: entry(410, 1102, 'This link has expired. Go back to the app and start again.'),
  requestTokenUsed: entry(410, 1103, 'This link has already been used or cancelled. Go back to the app and start again.'),
  appSuspended: entry(403, 1104, 'This app has been suspended. It cannot be given access.'),
  desktopAppCannotAuthenticate: entry(403, 1105, 'Desktop apps cannot use this sign-in page. The app must send you to the authorize page instead.'),
  formExpired: entry(403, 1106, 'This form has expired or did not come from this site. Go back to the app and start again.'),
  signInFailed: entry(401, 1107, 'The username or password is not right.'),
  signInThrottled: entry(429, 1108, 'Too many attempts to sign in. Please wait a few minutes and try again.'),
  signUpClosed: entry(404, 1109, 'Sign-up is closed on this service. Ask the operator of this service for an account.'),
  // Existing accounts (docs/accounts.md): sign-in through an upstream provider or the platform's login page.
  linkedSignInRefused: entry(403, 1110, 'This account cannot sign in here. Ask the operator of this service.'),
  externalSignInUnknown: entry(404, 1112, 'This sign-in link is not valid. Go back and sign in again.'),
  externalSignInUsed: entry(410, 1113, 'This sign-in has already been used. Go back and sign in again.'),
  externalSignInExpired: entry(410, 1114, 'This sign-in took too long and has expired. Go back and sign in again.'),
  externalSignInOtherBrowser: entry(403, 1115, 'This sign-in was started in another browser. Sign in again in this one.'),
  passwordSignInOff: entry(403, 1116, 'Signing in with a password is turned off on this service. Use the other way to sign in offered on this page.'),
  delegatedSignInRejected: entry(403, 1117, 'The login page refused this sign-in. Go back and sign in again.'),
  delegatedSignInUnanswered: entry(409, 1118, 'The login page has not finished this sign-in. Go back and sign in again.'),
  loginChallengeAnswered: entry(409, 1119, 'This login challenge has already been answered.'),
  screenNameUnderivable: entry(400, 1111, 'Your account has no name that can be a screen name here (1 to 15 letters, digits or underscores). Ask the operator of this service.'),
  // Importing people (docs/accounts.md), and an e-mail address given to a person.
  emailTaken: entry(409, 1120, 'This e-mail address belongs to another person.'),
  // OpenID Connect sign-in (docs/accounts.md).
  oidcSignInFailed: entry(400, 1125, 'The sign-in at your provider did not succeed. Go back and try again.'),
  oidcProviderUnavailable: entry(502, 1126, 'The sign-in provider cannot be reached right now. Please try again in a few minutes.'),
  oidcProviderUnknown: entry(404, 1127, 'This way of signing in is not offered here. Go back and sign in again.'),
  // OAuth 2.0 user context (1200 and up): `/2/oauth2/*` answer `{"error","error_description"}`
  // with the RFC 6749 §5.2 code and this message (X's wording where known, twitter-behaviour §9).
  oauth2InvalidRequest: entry(400, 1200, 'Value passed for the authorization code was invalid.', { oauth2: 'invalid_request' }),
  oauth2MissingClientAuthentication: entry(401, 1201, 'Missing valid authorization header', { oauth2: 'unauthorized_client' }),
  oauth2InvalidClient: entry(401, 1202, 'Client authentication failed.', { oauth2: 'invalid_client' }),
  oauth2UnsupportedGrantType: entry(400, 1203, 'The grant type is not supported.', { oauth2: 'unsupported_grant_type' }),
  oauth2InvalidScope: entry(400, 1204, 'The requested scope is invalid.', { oauth2: 'invalid_scope' }),
  oauth2InvalidToken: entry(400, 1205, 'Value passed for the token was invalid.', { oauth2: 'invalid_request' }),
  // Shown to people on the authorize page when the app cannot be sent the answer.
  oauth2UnknownClient: entry(400, 1206, 'This link is not valid: the app that sent you here is not known. Go back to the app and start again.'),
  oauth2RedirectNotRegistered: entry(400, 1207, 'This link is not valid: the app asked to send you to an address it has not registered. Go back to the app and start again.'),
  // API v2 problems (X's bodies).
  v2Unauthorized: entry(401, 1210, 'Unauthorized', { problem: { title: 'Unauthorized', type: 'about:blank' } }),
  v2UnsupportedAuthentication: entry(
    403,
    1211,
    'Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].',
    { problem: { title: 'Unsupported Authentication', type: 'https://api.twitter.com/2/problems/unsupported-authentication' } },
  ),
} as const satisfies Record<string, ErrorDef>

export type ErrorName = keyof typeof E

/** An error an authorization request is answered with at the app's redirect URI (RFC 6749 §4.1.2.1). */
export interface RedirectErrorDef {
  /** The `error` parameter of the redirect. */
  readonly error: string
  /** What a caller that redirects nowhere (the test kit's consent call) answers instead. */
  readonly otherwise: ErrorDef
}

/**
 * The refusals of /i/oauth2/authorize that go back to the app (with `error_description` and the
 * state), once its client and redirect URI are known; before that, the person sees an error page.
 */
export const REDIRECT_ERRORS = {
  unsupportedResponseType: { error: 'unsupported_response_type', otherwise: E.oauth2InvalidRequest },
  invalidRequest: { error: 'invalid_request', otherwise: E.oauth2InvalidRequest },
  invalidScope: { error: 'invalid_scope', otherwise: E.oauth2InvalidScope },
} as const satisfies Record<string, RedirectErrorDef>

/** The person said no (RFC 6749 §4.1.2.1): the `error` of the redirect that is nobody's mistake. */
export const ACCESS_DENIED = 'access_denied'

/**
 * The RFC 6749 §5.2 `error` a `/2/oauth2/*` answer carries: the entry's own, or, for a refusal
 * shared with the rest of the API (a 5xx, a 429, a bound), one that fits its status.
 */
export function oauth2ErrorCode(error: Pick<ErrorDef, 'status' | 'oauth2'>): string {
  if (error.oauth2 !== undefined) return error.oauth2
  if (error.status >= 500) return 'server_error'
  return error.status === 429 ? 'too_many_requests' : 'invalid_request'
}
