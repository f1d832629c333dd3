import { randomAlphanumeric } from '../../protocol/secrets.ts'
import type { ClientType, OAuth2ClientRecord } from '../../storage/records.ts'
import { changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'

/** What turning OAuth 2.0 on, off or to another type of client does to an app. */
export type OAuth2Setting = ClientType | 'off'

export interface ClientChange {
  /** The app's client after the change; undefined when OAuth 2.0 is off. */
  client: OAuth2ClientRecord | undefined
  /** A client secret made by this change: shown once, never again. */
  newSecret?: string
}

const newClientId = () => randomAlphanumeric(34)
const newClientSecret = () => randomAlphanumeric(50)

/**
 * Sets an app's OAuth 2.0 client (X's "User authentication settings"): a confidential client gets
 * a secret, a public one none; the client id stays while the client exists. Turning it off, or
 * changing the type, ends every grant the app holds, as rotating a consumer secret ends its tokens.
 */
export async function setOAuth2Client(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  input: { appId: string; setting: OAuth2Setting },
): Promise<ClientChange> {
  const nowMs = deps.clock.nowMs()
  const current = await deps.stores.oauth2.findClientByAppId(input.appId)
  if (input.setting === (current?.type ?? 'off')) return { client: current }
  return changeWithAudit(deps, async (tx, audit) => {
    const detail = { oauth2: input.setting }
    if (current) await tx.oauth2.revokeGrants({ appId: input.appId }, nowMs)
    if (input.setting === 'off') {
      await tx.oauth2.deleteClient(input.appId)
      await audit({ event: 'oauth2_client.updated', appId: input.appId, detail })
      return { client: undefined }
    }
    const secret = input.setting === 'confidential' ? newClientSecret() : null
    const client: OAuth2ClientRecord = {
      appId: input.appId,
      clientId: current?.clientId ?? newClientId(),
      type: input.setting,
      clientSecret: secret,
      createdAtMs: current?.createdAtMs ?? nowMs,
      updatedAtMs: nowMs,
    }
    await tx.oauth2.saveClient(client)
    await audit({ event: 'oauth2_client.updated', appId: input.appId, detail })
    return secret === null ? { client } : { client, newSecret: secret }
  })
}

/** A new secret for a confidential client; the old one stops working at once and every grant ends. Undefined for a public client or none. */
export async function regenerateClientSecret(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  input: { appId: string },
): Promise<ClientChange | undefined> {
  const current = await deps.stores.oauth2.findClientByAppId(input.appId)
  if (current?.type !== 'confidential') return undefined
  const nowMs = deps.clock.nowMs()
  const secret = newClientSecret()
  const client = { ...current, clientSecret: secret, updatedAtMs: nowMs }
  return changeWithAudit(deps, async (tx, audit) => {
    await tx.oauth2.revokeGrants({ appId: input.appId }, nowMs)
    await tx.oauth2.saveClient(client)
    await audit({ event: 'oauth2_client.updated', appId: input.appId, detail: { secret_regenerated: true } })
    return { client, newSecret: secret }
  })
}
