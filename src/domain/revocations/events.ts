import { createHash, randomUUID } from 'node:crypto'
import type { AuditDetail, AuditEventName } from '../../storage/records.ts'
import type { CredentialKind, RevocationEventRecord } from '../../storage/revocation-types.ts'

export type { CredentialKind } from '../../storage/revocation-types.ts'

/**
 * One end of a credential as a resource server receives it (a webhook's body, a message of the
 * Redis channel): never a token, secret or key in plain. docs/revocation-push.md says what each
 * type ends and what a receiver drops.
 */
export interface RevocationEvent {
  /** A UUID, the same on every delivery of the event: a receiver drops duplicates by it. */
  id: string
  type: RevocationEventType
  /** When the credential ended (ISO 8601). */
  at: string
  app_id: string | null
  user_id: string | null
  credential: {
    kind: CredentialKind
    /** Hex SHA-256 of the token's value, when one token ended (its bearer or OAuth 1.0a token value as issued). */
    sha256?: string
  }
}

export const REVOCATION_EVENT_TYPES = [
  'access_token.invalidated',
  'bearer_token.invalidated',
  'oauth2_token.revoked',
  'oauth2_refresh_token.reused',
  'oauth2_code.reused',
  'oauth2_client.changed',
  'oauth2_client.secret_rotated',
  'app.keys_rotated',
  'app.suspended',
  'app.deleted',
  'user.disabled',
  'authorization.revoked',
] as const
export type RevocationEventType = (typeof REVOCATION_EVENT_TYPES)[number]

/** What an audit entry needs to say which revocation it is: its event and its non-secret detail. */
interface EndingEntry {
  event: AuditEventName
  detail?: AuditDetail | null | undefined
}

type Revocation = { type: RevocationEventType; kind: CredentialKind }
const is = (type: RevocationEventType, kind: CredentialKind) => (): Revocation => ({ type, kind })

/**
 * The one table of which audited changes end a credential, and as which revocation event. Every
 * credential end is audited in a unit of work (changeWithAudit, src/domain/audit.ts), whose audit
 * writer reads this table and appends the event to the outbox in the same unit: a use case cannot
 * end a credential without its event. An event absent here ends nothing a resource server checks.
 */
export const REVOCATIONS: { readonly [E in AuditEventName]?: (detail: AuditDetail) => Revocation | undefined } = {
  'access_token.invalidated': is('access_token.invalidated', 'oauth1_access_token'),
  'bearer_token.invalidated': is('bearer_token.invalidated', 'bearer'),
  'oauth2_grant.revoked': (detail) => {
    if (detail['reason'] === 'refresh_token_reused') return { type: 'oauth2_refresh_token.reused', kind: 'oauth2_refresh_token' }
    if (detail['reason'] === 'code_reused') return { type: 'oauth2_code.reused', kind: 'oauth2_code' }
    return { type: 'oauth2_token.revoked', kind: detail['token_type'] === 'refresh' ? 'oauth2_refresh_token' : 'oauth2_access_token' }
  },
  'oauth2_client.updated': (detail) => {
    if (detail['secret_regenerated'] === true) return { type: 'oauth2_client.secret_rotated', kind: 'client_secret' }
    return detail['grants_ended'] === true ? { type: 'oauth2_client.changed', kind: 'oauth2_grant' } : undefined
  },
  'app.keys_rotated': is('app.keys_rotated', 'consumer_key'),
  'app.updated': (detail) => (detail['suspended'] === true ? { type: 'app.suspended', kind: 'app' } : undefined),
  'app.deleted': is('app.deleted', 'app'),
  'user.updated': (detail) => (detail['disabled'] === true ? { type: 'user.disabled', kind: 'user' } : undefined),
  'authorization.revoked': is('authorization.revoked', 'authorization'),
}

/** The revocation an audited change is, if it ends a credential. */
export function revocationOf(entry: EndingEntry): Revocation | undefined {
  return REVOCATIONS[entry.event]?.(entry.detail ?? {})
}

/** Hex SHA-256 of a token's value: how an event names the one token that ended. */
export const tokenSha256 = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex')

/**
 * The kinds that end everything of an app: their audit row names the owner (or the actor), who is no
 * more concerned than anyone else, so their event names no person — a receiver drops all of the app.
 */
const APP_WIDE: ReadonlySet<CredentialKind> = new Set<CredentialKind>(['bearer', 'consumer_key', 'client_secret', 'oauth2_grant', 'app'])

/** The outbox row of an audited change that ends a credential, or undefined. */
export function revocationEventOf(
  entry: EndingEntry & { appId?: string | null | undefined; userId?: string | null | undefined; endedTokenSha256?: string | undefined },
  atMs: number,
): RevocationEventRecord | undefined {
  const revocation = revocationOf(entry)
  if (!revocation) return undefined
  return {
    id: randomUUID(),
    type: revocation.type,
    atMs,
    appId: entry.appId ?? null,
    userId: APP_WIDE.has(revocation.kind) ? null : (entry.userId ?? null),
    credentialKind: revocation.kind,
    credentialSha256: entry.endedTokenSha256 ?? null,
  }
}

/** The event as it goes on the wire. */
export function revocationEventJson(event: RevocationEventRecord): RevocationEvent {
  return {
    id: event.id,
    type: event.type as RevocationEventType,
    at: new Date(event.atMs).toISOString(),
    app_id: event.appId,
    user_id: event.userId,
    credential: { kind: event.credentialKind, ...(event.credentialSha256 === null ? {} : { sha256: event.credentialSha256 }) },
  }
}
