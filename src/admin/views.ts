import type { AdminTokenRecord } from '../storage/admin-types.ts'
import type { ClientChange } from '../domain/oauth2-user/clients.ts'
import type { AppRecord, OAuth2ClientRecord, UserRecord } from '../storage/records.ts'

const iso = (ms: number) => new Date(ms).toISOString()

export const userView = (u: UserRecord) => ({
  user_id: u.id,
  screen_name: u.screenName,
  name: u.name,
  created_at: iso(u.createdAtMs),
  disabled: u.isDisabled === true,
})

/** An app as the admin API shows it; the consumer secret only in the answers that issue it. */
export function appView(a: AppRecord, options: { withSecret: boolean }) {
  return {
    app_id: a.id,
    name: a.name,
    owner: a.ownerId,
    consumer_key: a.consumerKey,
    ...(options.withSecret ? { consumer_secret: a.consumerSecret } : {}),
    callbacks: a.callbackUrls,
    type: a.type,
    sign_in: a.isSignInEnabled,
    access_level: a.accessLevel,
    description: a.description,
    website: a.website,
    resource_server: a.isResourceServer,
    signature_methods: a.signatureMethods,
    suspended: a.isSuspended,
    created_at: iso(a.createdAtMs),
    updated_at: iso(a.updatedAtMs),
  }
}

/** An app's OAuth 2.0 client as the answers about one app show it; the secret only when just made. */
export function oauth2View(client: OAuth2ClientRecord | undefined, change?: ClientChange) {
  return {
    oauth2_enabled: client !== undefined,
    client_type: client?.type ?? null,
    client_id: client?.clientId ?? null,
    ...(change?.newSecret ? { client_secret: change.newSecret } : {}),
  }
}

export const adminTokenView = (t: AdminTokenRecord) => ({ id: t.id, name: t.name })
