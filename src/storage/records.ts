/** Row types shared by the domain and every storage adapter (camelCase; wire names live at the edges). */

export const ACCESS_LEVELS = ['read', 'read-write', 'read-write-directmessages'] as const
export type AccessLevel = (typeof ACCESS_LEVELS)[number]

export const APP_TYPES = ['web', 'desktop'] as const
export type AppType = (typeof APP_TYPES)[number]

export type SignatureMethodName = 'HMAC-SHA1' | 'HMAC-SHA256' | 'PLAINTEXT'

export interface UserRecord {
  id: string
  screenName: string
  name: string
  passwordHash: string
  createdAtMs: number
  /** Disabled: cannot sign in, and their access tokens get 401 code 89 while it lasts. */
  isDisabled?: boolean
  /** Raised to end every browser session at once; absent means 0. */
  sessionGeneration?: number
  /** Their e-mail address, unique without regard to case: how an upstream identity may be matched to them. */
  email?: string
}

/** One browser session of a person (src/domain/browser-sessions.ts). */
export interface BrowserSessionRecord {
  /** Random; the signed session cookie names it. */
  id: string
  userId: string
  /** The person's session generation when it began: live only while it is still theirs. */
  generation: number
  createdAtMs: number
  lastSeenAtMs: number
  /** When the password was last entered in it (sign-in, or a confirmation before a sensitive action). */
  passwordAtMs: number
  /** As the browser sent it, cut to 512 characters. */
  userAgent: string
  address: string
  endedAtMs: number | null
  /** What this session may see once (an app and its key), until when; absent when nothing. */
  reveal?: { mark: string; untilMs: number }
}

export interface AppRecord {
  id: string
  name: string
  description: string
  website: string
  ownerId: string
  consumerKey: string
  consumerSecret: string
  callbackUrls: string[]
  accessLevel: AccessLevel
  type: AppType
  isSignInEnabled: boolean
  signatureMethods: SignatureMethodName[]
  isSuspended: boolean
  /**
   * Who suspended it: an operator (the admin API or the CLI; only an operator lifts it) or its
   * owner (the developer console). Absent while it is not suspended.
   */
  suspendedBy?: SuspendedBy
  isResourceServer: boolean
  createdAtMs: number
  updatedAtMs: number
}

export type SuspendedBy = 'operator' | 'owner'

/**
 * issued → authorized (a person allowed it; a verifier exists) → used (exchanged once);
 * issued → denied (the person cancelled); authorized → dead (too many wrong verifiers).
 */
export type RequestTokenStatus = 'issued' | 'authorized' | 'used' | 'denied' | 'dead'

export interface RequestTokenRecord {
  token: string
  secret: string
  appId: string
  /** A registered callback URL (with the app's own query) or the literal `oob`. */
  callback: string
  accessLevel: AccessLevel
  status: RequestTokenStatus
  userId: string | null
  verifierFailures: number
  createdAtMs: number
  expiresAtMs: number
}

export interface AccessTokenRecord {
  token: string
  secret: string
  appId: string
  userId: string
  accessLevel: AccessLevel
  createdAtMs: number
  revokedAtMs: number | null
}

export interface BearerTokenRecord {
  token: string
  appId: string
  createdAtMs: number
  revokedAtMs: number | null
}

/** OAuth 2.0 client types (RFC 6749 §2.1): confidential clients hold a secret, public ones cannot. */
export const CLIENT_TYPES = ['confidential', 'public'] as const
export type ClientType = (typeof CLIENT_TYPES)[number]

/** An app's OAuth 2.0 client: its own id, distinct from the consumer key. */
export interface OAuth2ClientRecord {
  appId: string
  clientId: string
  type: ClientType
  /** Only a confidential client has one. */
  clientSecret: string | null
  /** The secret before the last regeneration, while its grace period lasts (until previousSecretExpiresAtMs). */
  previousClientSecret: string | null
  previousSecretExpiresAtMs: number | null
  createdAtMs: number
  updatedAtMs: number
}

/** An authorization code as issued at the consent page (the code itself is kept only as a keyed hash). */
export interface AuthorizationCodeRecord {
  appId: string
  userId: string
  redirectUri: string
  codeChallenge: string
  challengeMethod: 'S256' | 'plain'
  scopes: string[]
  createdAtMs: number
  expiresAtMs: number
}

/** What a person allowed an app through OAuth 2.0: the tokens of one code and of its refreshes. */
export interface OAuth2GrantRecord {
  id: string
  appId: string
  userId: string
  scopes: string[]
  createdAtMs: number
  revokedAtMs: number | null
}

/** An OAuth 2.0 user access or refresh token (the token itself is kept only as a keyed hash). */
export interface OAuth2TokenRecord {
  kind: 'access' | 'refresh'
  grantId: string
  createdAtMs: number
  expiresAtMs: number
  /** A refresh token already used, or an access token a refresh replaced. */
  spentAtMs: number | null
}

/** Every kind of event the audit trail records (docs/audit.md says where each is written). */
export const AUDIT_EVENTS = [
  'request_token.issued',
  'consent.granted',
  'consent.denied',
  'access_token.issued',
  'access_token.invalidated',
  'bearer_token.issued',
  'bearer_token.invalidated',
  'sign_in.succeeded',
  'sign_in.failed',
  'sign_in.unlocked',
  'user.created',
  'app.created',
  'app.updated',
  'app.keys_rotated',
  'app.deleted',
  'master_key.rotated',
  'master_key.retired',
  'admin_token.created',
  'admin_token.revoked',
  'user.updated',
  'authorization.revoked',
  'sessions.ended',
  'audit.pruned',
  'oauth2_client.updated',
  'oauth2_code.issued',
  'oauth2_token.issued',
  'oauth2_token.refreshed',
  'oauth2_grant.revoked',
  'webhook.added',
  'webhook.verified',
  'webhook.replayed',
  'webhook.removed',
  'identity.linked',
  'identity.unlinked',
  'login_challenge.accepted',
  'login_challenge.rejected',
] as const
export type AuditEventName = (typeof AUDIT_EVENTS)[number]

/** Non-secret facts about an event: an access level, a callback's origin, why a sign-in failed. */
export type AuditDetail = Record<string, string | number | boolean | string[]>

/** One audit row. Never a token, secret, verifier, PIN, password or signature, not even hashed. */
export interface AuditEventRecord {
  atMs: number
  event: AuditEventName
  appId: string | null
  userId: string | null
  /** The client's address as the HTTP layer saw it; null for the CLI. */
  address: string | null
  detail: AuditDetail | null
}

/** Which check of a signed request failed, as the developer console names it. */
export type SignatureFailureReason =
  | 'bad_signature'
  | 'timestamp_out_of_bounds'
  | 'nonce_reused'
  | 'token_invalid'
  | 'method_not_allowed'
  | 'body_hash_mismatch'
  | 'app_suspended'

/**
 * One refused signed request of an app, for its developer: never a secret. The base string is the
 * one Latchkey computed (it holds parameters and token values, never a secret or the signature).
 */
export interface SignatureFailure {
  atMs: number
  method: string
  url: string
  reason: SignatureFailureReason
  /** Only for a bad signature: what the client's base string should have been. */
  baseString?: string
  /** Where each parameter came from, names only: `header: oauth_consumer_key, …; query: …; body: …`. */
  parameters?: string
}
