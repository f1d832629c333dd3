/**
 * The revocation push's stores (docs/revocation-push.md): the outbox every credential end writes in
 * its unit of work, and the webhook endpoints with their deliveries, read and written by the
 * delivery loop (src/domain/revocations/delivery.ts). Never a token, secret or key in plain: a
 * single ended token is named by its SHA-256, an endpoint's signing secret is sealed.
 */

/** The Redis channel of revocation events, under the deployment's key prefix (`--redis-key-prefix`). */
export const revocationChannel = (keyPrefix = 'latchkey:'): string => `${keyPrefix}revocations`

/** The channel under the default key prefix. */
export const REVOCATIONS_CHANNEL = revocationChannel()

/** What kind of credential ended: one token, or everything of an app, a person or both. */
export type CredentialKind =
  | 'oauth1_access_token'
  | 'bearer'
  | 'oauth2_access_token'
  | 'oauth2_refresh_token'
  | 'oauth2_code'
  | 'oauth2_grant'
  | 'consumer_key'
  | 'client_secret'
  | 'app'
  | 'user'
  | 'authorization'

/** One end of a credential, as the outbox keeps it. */
export interface RevocationEventRecord {
  /** A UUID: the same on every delivery of this event, so a receiver can drop duplicates. */
  id: string
  type: string
  atMs: number
  appId: string | null
  userId: string | null
  credentialKind: CredentialKind
  /** Hex SHA-256 of the token value, when one token ended; else null. */
  credentialSha256: string | null
}

/** An outbox event with its place in the outbox's order. */
export interface SequencedRevocationEvent extends RevocationEventRecord {
  seq: number
}

export interface RevocationOutboxStore {
  /** Adds an event to the outbox: called inside the unit of work of the change that ended the credential. */
  append(event: RevocationEventRecord): Promise<void>
}

export interface WebhookEndpointRecord {
  id: string
  url: string
  /** Only this app's events; null: every event. */
  appId: string | null
  createdAtMs: number
  /** When the receiver answered the CRC challenge; null: registered, nothing sent yet (events wait). */
  verifiedAtMs: number | null
  lastSuccessAtMs: number | null
  lastError: string | null
  lastErrorAtMs: number | null
}

export interface WebhookStatus extends WebhookEndpointRecord {
  /** Events waiting for it: its pending deliveries and the outbox events not yet handed out that concern it. */
  pending: number
  failed: number
}

/** The next delivery of an endpoint: its oldest pending event (deliveries of one endpoint go in outbox order). */
export interface DueDelivery {
  endpoint: { id: string; url: string; secret: string }
  event: SequencedRevocationEvent
  attempts: number
}

export interface FailedAttempt {
  error: string
  nowMs: number
  /** When to try again; ignored when `giveUp`. */
  nextAttemptAtMs: number
  /** The event is past its retention: marked failed, the next one goes. */
  giveUp: boolean
}

export interface WebhookStore {
  /** Registers an endpoint, unverified; `secret` is sealed at rest. Events handed out from now on wait for it. */
  add(endpoint: { id: string; url: string; appId: string | null; secret: string; createdAtMs: number }): Promise<void>
  /** One endpoint with its signing secret (opened). */
  find(id: string): Promise<(WebhookEndpointRecord & { secret: string }) | undefined>
  /** The receiver answered the CRC challenge: deliveries to it may start. */
  markVerified(id: string, nowMs: number): Promise<boolean>
  list(): Promise<WebhookStatus[]>
  /** The endpoint and its deliveries; false when there was none. */
  remove(id: string): Promise<boolean>
  /**
   * Takes or renews the delivery lease (one deliverer at a time, across processes): true when
   * `holder` holds it until `nowMs + ttlMs`. One conditional statement.
   */
  claimLease(holder: string, nowMs: number, ttlMs: number): Promise<boolean>
  /** Gives the lease up, if `holder` holds it. */
  releaseLease(holder: string): Promise<void>
  /**
   * Hands outbox events not yet handed out to every endpoint they concern (a pending delivery
   * each), at most `limit`, in outbox order; answers them (for the Redis channel).
   */
  fanOut(limit: number): Promise<SequencedRevocationEvent[]>
  /** Each endpoint's oldest pending delivery, when its next attempt is due at `nowMs`. */
  due(nowMs: number): Promise<DueDelivery[]>
  delivered(endpointId: string, seq: number, nowMs: number): Promise<void>
  attemptFailed(endpointId: string, seq: number, attempt: FailedAttempt): Promise<void>
  /**
   * Queues events again for an endpoint: its failed ones, or every outbox event at or after
   * `sinceMs` (that concerns it). Answers how many are pending because of it.
   */
  replay(endpointId: string, what: { failed: true } | { sinceMs: number }, nowMs: number): Promise<number>
  /** Deletes outbox events older than `beforeMs` that no delivery still needs. */
  prune(beforeMs: number): Promise<number>
}
