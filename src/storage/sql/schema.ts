import type { Generated } from 'kysely'

/**
 * The tables as Kysely sees them (snake_case, as stored). Booleans are 0/1 integers on every
 * backend. Columns marked sealed hold `v1.<key id>.…` (sealing/sealer.ts); `*_hash` columns hold the
 * keyed hash by which a value is found.
 */

export interface UsersTable {
  id: string
  screen_name: string
  screen_name_lower: string
  name: string
  password_hash: string
  created_at_ms: number
  /** When the person was disabled (admin API); null while they are not. */
  disabled_at_ms: number | null
  /** Raised to end every browser session of the person at once; sessions carry the one they began in. */
  session_generation: number
  /** Migration 021: the person's e-mail address and its lower case (unique); null when none. */
  email: string | null
  email_lower: string | null
}

/** The console's signature-failure log (migration 007). */
export interface SignatureFailuresTable {
  id: Generated<number>
  app_id: string
  at_ms: number
  method: string
  url: string
  reason: string
  /** Only for a bad signature. */
  base_string: string | null
  /** The parameter names by where they came from (migration 012); null in rows from before it. */
  parameters: string | null
}

export interface AppsTable {
  id: string
  name: string
  /** The name as compared for uniqueness per owner (lower case); unique with owner_id (migration 008). */
  name_key: string | null
  description: string
  website: string
  owner_id: string
  /** Sealed. */
  consumer_key: string
  consumer_key_hash: string | null
  /** Sealed. */
  consumer_secret: string
  /** JSON array of strings. */
  callback_urls: string
  access_level: string
  app_type: string
  sign_in_enabled: number
  /** Comma-separated method names. */
  signature_methods: string
  is_suspended: number
  /** 'operator' or 'owner' while suspended (migration 010); null otherwise. */
  suspended_by: string | null
  is_resource_server: number
  created_at_ms: number
  updated_at_ms: number
}

export interface RequestTokensTable {
  /** The token itself is never stored: shown once, found by its hash. */
  token_hash: string
  /** Sealed: needed to check the access_token request's signature. */
  secret: string
  app_id: string
  callback: string
  access_level: string
  status: string
  user_id: string | null
  verifier_hash: string | null
  verifier_failures: number
  created_at_ms: number
  expires_at_ms: number
}

export interface AccessTokensTable {
  /** Sealed (given back to a person who authorizes again). */
  token: string
  token_hash: string | null
  /** Sealed. */
  secret: string
  app_id: string
  user_id: string
  access_level: string
  created_at_ms: number
  revoked_at_ms: number | null
}

export interface BearerTokensTable {
  /** Sealed (given back to repeated calls). */
  token: string
  token_hash: string | null
  app_id: string
  created_at_ms: number
  revoked_at_ms: number | null
}

export interface AuditEventsTable {
  /** Autoincrement: orders the events of one millisecond. */
  id: Generated<number>
  at_ms: number
  event: string
  app_id: string | null
  user_id: string | null
  address: string | null
  /** JSON object of non-secret facts. */
  detail: string | null
}

export interface AdminTokensTable {
  id: string
  name: string
  /** The token is shown once; it is found by this keyed hash. */
  token_hash: string
  created_at_ms: number
  revoked_at_ms: number | null
}

/** One app's rotated-out key pair during its grace period. */
export interface PreviousConsumerKeysTable {
  app_id: string
  /** Sealed. */
  consumer_key: string
  consumer_key_hash: string
  /** Sealed. */
  consumer_secret: string
  expires_at_ms: number
}

/** One browser session (a signed-in cookie names its id); ended_at_ms once signed out or ended. */
export interface BrowserSessionsTable {
  id: string
  user_id: string
  /** The person's session_generation when it began: it is live only while they are equal. */
  generation: number
  created_at_ms: number
  /** Updated at most once a minute. */
  last_seen_at_ms: number
  /** When the password was last entered in this session (sign-in or a confirmation). */
  password_at_ms: number
  user_agent: string
  address: string
  ended_at_ms: number | null
  /** The app and consumer key whose secret this session may see once, until reveal_until_ms (migration 011). */
  reveal_mark: string | null
  reveal_until_ms: number | null
}

/** An app's OAuth 2.0 client (src/domain/oauth2-user/clients.ts): one per app, when turned on. */
export interface OAuth2ClientsTable {
  app_id: string
  client_id: string
  client_type: string
  /** Sealed; null for a public client. */
  client_secret: string | null
  /** Sealed: the secret before the last regeneration, accepted until previous_secret_expires_at_ms. */
  previous_client_secret: string | null
  previous_secret_expires_at_ms: number | null
  created_at_ms: number
  updated_at_ms: number
}

/** Authorization codes, kept only as their keyed hash. */
export interface OAuth2CodesTable {
  code_hash: string
  app_id: string
  user_id: string
  redirect_uri: string
  code_challenge: string
  challenge_method: string
  /** Space-separated. */
  scopes: string
  created_at_ms: number
  expires_at_ms: number
  redeemed_at_ms: number | null
  /** The grant its redemption made, so that a second use can end it. */
  grant_id: string | null
}

/** What a person allowed an app (OAuth 2.0): the tokens of one authorization code and its refreshes. */
export interface OAuth2GrantsTable {
  id: string
  app_id: string
  user_id: string
  scopes: string
  created_at_ms: number
  revoked_at_ms: number | null
}

/** Access and refresh tokens, kept only as their keyed hash. */
export interface OAuth2TokensTable {
  token_hash: string
  /** access | refresh */
  kind: string
  grant_id: string
  created_at_ms: number
  expires_at_ms: number
  /** A refresh token used once, or an access token its refresh replaced. */
  spent_at_ms: number | null
}

/** The sign-in throttle's keys an operator cleared, and when (the throttle lives in the limiters). */
export interface SignInUnlocksTable {
  throttle_key: string
  unlocked_at_ms: number
}

export interface Database {
  users: UsersTable
  apps: AppsTable
  request_tokens: RequestTokensTable
  access_tokens: AccessTokensTable
  bearer_tokens: BearerTokensTable
  audit_events: AuditEventsTable
  admin_tokens: AdminTokensTable
  signature_failures: SignatureFailuresTable
  previous_consumer_keys: PreviousConsumerKeysTable
  browser_sessions: BrowserSessionsTable
  oauth2_clients: OAuth2ClientsTable
  oauth2_codes: OAuth2CodesTable
  oauth2_grants: OAuth2GrantsTable
  oauth2_tokens: OAuth2TokensTable
  sign_in_unlocks: SignInUnlocksTable
  revocation_events: RevocationEventsTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  revocation_lease: RevocationLeaseTable
  identity_links: IdentityLinksTable
  external_sign_ins: ExternalSignInsTable
}

/** An upstream identity linked to a person (migration 021). */
export interface IdentityLinksTable {
  /** `<provider>:<subject>`. */
  id: string
  provider: string
  subject: string
  user_id: string
  created_at_ms: number
  last_sign_in_at_ms: number | null
}

/** A sign-in in progress at an upstream provider or the platform's login page (migration 021). */
export interface ExternalSignInsTable {
  /** Keyed hash of the state or login challenge. */
  id_hash: string
  kind: string
  provider: string
  /** Keyed hash of the browser's cookie value. */
  browser_hash: string
  return_to: string
  app_id: string | null
  login_hint: string | null
  force_login: number
  /** Sealed JSON: the PKCE verifier and nonce. */
  secrets: string | null
  created_at_ms: number
  expires_at_ms: number
  /** JSON DelegationOutcome. */
  outcome: string | null
  used_at_ms: number | null
}

/** The outbox of credential ends (migration 020): never a token, only its SHA-256. */
export interface RevocationEventsTable {
  /** The outbox's order. */
  id: Generated<number>
  /** The event's id (a UUID), the same on every delivery. */
  event_id: string
  type: string
  at_ms: number
  app_id: string | null
  user_id: string | null
  credential_kind: string
  credential_sha256: string | null
  /** 1 once handed to every endpoint (webhook_deliveries). */
  fanned: Generated<number>
}

export interface WebhookEndpointsTable {
  id: string
  url: string
  app_id: string | null
  /** Sealed. */
  secret: string
  created_at_ms: number
  /** When the receiver answered the CRC challenge; null: nothing is sent to it yet. */
  verified_at_ms: number | null
  last_success_at_ms: number | null
  last_error: string | null
  last_error_at_ms: number | null
}

export interface WebhookDeliveriesTable {
  /** `<endpoint_id>/<event_seq>`. */
  id: string
  endpoint_id: string
  event_seq: number
  /** `pending` or `failed`; a delivered event's row is deleted. */
  state: string
  attempts: number
  next_attempt_at_ms: number
}

/** The one row that says which process delivers (docs/revocation-push.md). */
export interface RevocationLeaseTable {
  name: string
  holder: string
  expires_at_ms: number
}
