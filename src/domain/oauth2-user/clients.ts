import { randomAlphanumeric } from '../../protocol/secrets.ts'
import type { ClientType, OAuth2ClientRecord } from '../../storage/records.ts'
import { changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import { checkGraceSeconds } from '../registry/apps.ts'

/** What turning OAuth 2.0 on, off or to another type of client does to an app. */
export type OAuth2Setting = ClientType | 'off'

export interface ClientChange {
  /** The app's client after the change; undefined when OAuth 2.0 is off. */
  client: OAuth2ClientRecord | undefined
  /** A client secret made by this change: shown once, never again. */
  newSecret?: string
}

const newClientId = () => randomAlphanumeric(34)

/** Printable ASCII of a sane length: wider than any client id made here (34 letters and digits). */
const POSSIBLE_CLIENT_ID = /^[\x21-\x7e]{1,200}$/

/**
 * The client of a client_id, or undefined. A text that cannot be a client id finds none without
 * asking the store: it may hold what a database refuses (U+0000 on PostgreSQL).
 */
export async function findClient(deps: Pick<DomainDeps, 'stores'>, clientId: string): Promise<OAuth2ClientRecord | undefined> {
  return POSSIBLE_CLIENT_ID.test(clientId) ? deps.stores.oauth2Clients.findByClientId(clientId) : undefined
}
const newClientSecret = () => randomAlphanumeric(50)

/**
 * Sets an app's OAuth 2.0 client (X's "User authentication settings"): a confidential client gets
 * a secret, a public one none; the client id stays while the client exists. Turning it off, or
 * changing the type, ends every grant the app holds, as rotating a consumer secret ends its tokens.
 */
export async function setOAuth2Client(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  input: { appId: string; setting: OAuth2Setting; values?: { clientId?: string | undefined; clientSecret?: string | undefined } },
): Promise<ClientChange> {
  const nowMs = deps.clock.nowMs()
  const current = await deps.stores.oauth2Clients.findByAppId(input.appId)
  if (input.setting === (current?.type ?? 'off')) return { client: current }
  return changeWithAudit(deps, async (tx, audit) => {
    // grants_ended: a revocation event (src/domain/revocations/events.ts) when there were grants to end.
    const detail = { oauth2: input.setting, ...(current ? { grants_ended: true } : {}) }
    if (current) await tx.oauth2Grants.revokeAll({ appId: input.appId }, nowMs)
    if (input.setting === 'off') {
      await tx.oauth2Clients.delete(input.appId)
      await audit({ event: 'oauth2_client.updated', appId: input.appId, detail })
      return { client: undefined }
    }
    // A seed file's fixed values, when given, for a client made now.
    const secret = input.setting === 'confidential' ? (input.values?.clientSecret ?? newClientSecret()) : null
    const client: OAuth2ClientRecord = {
      appId: input.appId,
      clientId: current?.clientId ?? input.values?.clientId ?? newClientId(),
      type: input.setting,
      clientSecret: secret,
      previousClientSecret: null,
      previousSecretExpiresAtMs: null,
      createdAtMs: current?.createdAtMs ?? nowMs,
      updatedAtMs: nowMs,
    }
    await tx.oauth2Clients.save(client)
    await audit({ event: 'oauth2_client.updated', appId: input.appId, detail })
    return secret === null ? { client } : { client, newSecret: secret }
  })
}

/**
 * The app's client after a surface's OAuth 2.0 fields: `settingOf` gets the app's current setting
 * and answers the one asked for, or undefined to leave the client as it is.
 */
export async function applyOAuth2Setting(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  appId: string,
  settingOf: (current: OAuth2Setting) => OAuth2Setting | undefined,
): Promise<ClientChange> {
  const current = await deps.stores.oauth2Clients.findByAppId(appId)
  const setting = settingOf(current?.type ?? 'off')
  return setting === undefined ? { client: current } : setOAuth2Client(deps, { appId, setting })
}

/**
 * A new secret for a confidential client, with the consumer secret's grace rules (rotateAppKeys):
 * without a grace period the old secret stops working at once and every grant of the app ends; with
 * one (1 s to 7 days) the old secret keeps authenticating the client until it ends, and the grants
 * stay. Undefined for a public client or none.
 */
export async function regenerateClientSecret(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  input: { appId: string; graceSeconds?: number },
): Promise<ClientChange | undefined> {
  checkGraceSeconds(input.graceSeconds)
  const current = await deps.stores.oauth2Clients.findByAppId(input.appId)
  if (current?.type !== 'confidential') return undefined
  const nowMs = deps.clock.nowMs()
  const secret = newClientSecret()
  const { graceSeconds } = input
  const client: OAuth2ClientRecord = {
    ...current,
    clientSecret: secret,
    previousClientSecret: graceSeconds === undefined ? null : current.clientSecret,
    previousSecretExpiresAtMs: graceSeconds === undefined ? null : nowMs + graceSeconds * 1000,
    updatedAtMs: nowMs,
  }
  const detail = { secret_regenerated: true, grants_ended: graceSeconds === undefined, ...(graceSeconds === undefined ? {} : { grace_seconds: graceSeconds }) }
  return changeWithAudit(deps, async (tx, audit) => {
    if (graceSeconds === undefined) await tx.oauth2Grants.revokeAll({ appId: input.appId }, nowMs)
    await tx.oauth2Clients.save(client)
    await audit({ event: 'oauth2_client.updated', appId: input.appId, detail })
    return { client, newSecret: secret }
  })
}
