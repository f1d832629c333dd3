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

export const E = {
  couldNotAuthenticate: { status: 401, code: 32, message: 'Could not authenticate you.' },
  pageNotFound: { status: 404, code: 34, message: 'Sorry, that page does not exist' },
  rateLimitExceeded: { status: 429, code: 88, message: 'Rate limit exceeded' },
  invalidOrExpiredToken: { status: 401, code: 89, message: 'Invalid or expired token.' },
  sslRequired: { status: 403, code: 92, message: 'SSL is required' },
  unableToVerifyCredentials: {
    status: 403,
    code: 99,
    message: 'Unable to verify your credentials',
    label: 'authenticity_token_error',
  },
  overCapacity: { status: 503, code: 130, message: 'Over capacity' },
  internalError: { status: 500, code: 131, message: 'Internal error' },
  timestampOutOfBounds: { status: 401, code: 135, message: 'Timestamp out of bounds.' },
  missingGrantType: { status: 403, code: 170, message: 'Missing required parameter: grant_type' },
  badAuthenticationData: { status: 400, code: 215, message: 'Bad Authentication data.' },
  credentialsDoNotAllowResource: {
    status: 403,
    code: 220,
    message: 'Your credentials do not allow access to this resource.',
  },
  callbackNotApproved: {
    status: 403,
    code: 415,
    message:
      'Callback URL not approved for this client application. Approved callback URLs can be adjusted in your application settings',
  },
  suspendedApplication: { status: 401, code: 416, message: 'Invalid / suspended application' },
  desktopOnlyOob: {
    status: 401,
    code: 417,
    message: "Desktop applications only support the oauth_callback value 'oob'",
  },
  // Latchkey's own codes (1000 and up), for cases Twitter has no code for.
  badRequest: { status: 400, code: 1000, message: 'Bad request.' },
  methodNotAllowed: { status: 405, code: 1001, message: 'Method not allowed for this resource.' },
  requestTooLarge: { status: 413, code: 1002, message: 'Request too large.' },
  invalidParameter: { status: 400, code: 1003, message: 'A parameter is invalid.' },
  notFound: { status: 404, code: 1004, message: 'No such record.' },
  headersTooLarge: { status: 431, code: 1005, message: 'Request headers too large.' },
  urlTooLong: { status: 414, code: 1006, message: 'Request URL too long.' },
  requestTimeout: { status: 408, code: 1007, message: 'Request took too long to arrive.' },
  alreadyExists: { status: 409, code: 1008, message: 'A record with this name already exists.' },
  credentialUnreadable: {
    status: 403,
    code: 1009,
    message: 'This credential cannot be read by the service: its stored secret is damaged or sealed under a master key the service does not hold. Ask the operator.',
    oauth2: 'invalid_client',
  },
  forwardAuthUntrusted: {
    status: 403,
    code: 1010,
    message: 'Only a reverse proxy named in --trust-proxy may call this endpoint.',
  },
  // The browser step's own codes (1100 and up): shown to people on HTML pages, so written for them.
  requestTokenMissing: {
    status: 400,
    code: 1100,
    message: 'This link has no request token. Go back to the app and start again.',
  },
  requestTokenUnknown: {
    status: 404,
    code: 1101,
    message: 'This link is not valid. Go back to the app and start again.',
  },
  requestTokenExpired: {
    status: 410,
    code: 1102,
    message: 'This link has expired. Go back to the app and start again.',
  },
  requestTokenUsed: {
    status: 410,
    code: 1103,
    message: 'This link has already been used or cancelled. Go back to the app and start again.',
  },
  appSuspended: { status: 403, code: 1104, message: 'This app has been suspended. It cannot be given access.' },
  desktopAppCannotAuthenticate: {
    status: 403,
    code: 1105,
    message: 'Desktop apps cannot use this sign-in page. The app must send you to the authorize page instead.',
  },
  formExpired: {
    status: 403,
    code: 1106,
    message: 'This form has expired or did not come from this site. Go back to the app and start again.',
  },
  signInFailed: { status: 401, code: 1107, message: 'The username or password is not right.' },
  signInThrottled: {
    status: 429,
    code: 1108,
    message: 'Too many attempts to sign in. Please wait a few minutes and try again.',
  },
  signUpClosed: { status: 404, code: 1109, message: 'Sign-up is closed on this service. Ask the operator of this service for an account.' },
  // OAuth 2.0 user context (1200 and up): `/2/oauth2/*` answer `{"error","error_description"}`
  // with the RFC 6749 §5.2 code and this message (X's wording where known, twitter-behaviour §9).
  oauth2InvalidRequest: { status: 400, code: 1200, message: 'Value passed for the authorization code was invalid.', oauth2: 'invalid_request' },
  oauth2MissingClientAuthentication: { status: 401, code: 1201, message: 'Missing valid authorization header', oauth2: 'unauthorized_client' },
  oauth2InvalidClient: { status: 401, code: 1202, message: 'Client authentication failed.', oauth2: 'invalid_client' },
  oauth2UnsupportedGrantType: { status: 400, code: 1203, message: 'The grant type is not supported.', oauth2: 'unsupported_grant_type' },
  oauth2InvalidScope: { status: 400, code: 1204, message: 'The requested scope is invalid.', oauth2: 'invalid_scope' },
  oauth2InvalidToken: { status: 400, code: 1205, message: 'Value passed for the token was invalid.', oauth2: 'invalid_request' },
  // Shown to people on the authorize page when the app cannot be sent the answer.
  oauth2UnknownClient: {
    status: 400,
    code: 1206,
    message: 'This link is not valid: the app that sent you here is not known. Go back to the app and start again.',
  },
  oauth2RedirectNotRegistered: {
    status: 400,
    code: 1207,
    message: 'This link is not valid: the app asked to send you to an address it has not registered. Go back to the app and start again.',
  },
  // API v2 problems (X's bodies).
  v2Unauthorized: { status: 401, code: 1210, message: 'Unauthorized', problem: { title: 'Unauthorized', type: 'about:blank' } },
  v2UnsupportedAuthentication: {
    status: 403,
    code: 1211,
    message:
      'Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].',
    problem: { title: 'Unsupported Authentication', type: 'https://api.twitter.com/2/problems/unsupported-authentication' },
  },
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
