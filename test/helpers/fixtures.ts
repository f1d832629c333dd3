import type { DomainDeps } from '../../src/domain/deps.ts'
import { handOutBearerToken } from '../../src/domain/oauth2/bearer-token.ts'
import { setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { newUserTokenValue } from '../../src/domain/oauth2-user/token-values.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { createApp, type AppSettings } from '../../src/domain/registry/apps.ts'
import { createUser } from '../../src/domain/registry/users.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'

let counter = 0

/** A registered person with a known password. */
export async function makeUser(domain: DomainDeps, overrides: { screenName?: string; password?: string; name?: string } = {}) {
  counter += 1
  const password = overrides.password ?? `password-${counter}-secret`
  const user: UserRecord = await createUser(domain, {
    screenName: overrides.screenName ?? `user${counter}_${Date.now() % 100000}`,
    password,
    name: overrides.name,
  })
  return { user, password }
}

/** A registered app owned by `owner` (a new user when not given). */
export async function makeApp(domain: DomainDeps, settings: AppSettings & { owner?: UserRecord } = {}): Promise<AppRecord> {
  const owner = settings.owner ?? (await makeUser(domain)).user
  // Read-write unless a test says otherwise (a new app's own default is read: APP_DEFAULTS).
  return createApp(domain, {
    callbackUrls: ['https://client.example/callback'],
    accessLevel: 'read-write',
    ...settings,
    name: settings.name ?? 'Test App',
    owner: owner.screenName,
  })
}

/** Credentials of every kind for one person's app, issued through the use cases. */
export interface EveryCredential {
  app: AppRecord
  user: UserRecord
  consumer: { key: string; secret: string }
  /** The owner's OAuth 1.0a access token. */
  token: { key: string; secret: string }
  /** The app-only bearer token. */
  bearer: string
  /** An OAuth 2.0 user access token of a public client, an hour to live. */
  userAccessToken: string
}

export async function issueEveryCredential(domain: DomainDeps): Promise<EveryCredential> {
  const { user } = await makeUser(domain)
  const app = await makeApp(domain, { owner: user })
  const { token } = await issueOwnerToken(domain, app.id)
  const bearer = await handOutBearerToken(domain, app.id, null)
  await setOAuth2Client(domain, { appId: app.id, setting: 'public' })
  const nowMs = Date.now()
  const grant = { id: domain.newId(), appId: app.id, userId: user.id, scopes: ['users.read'], createdAtMs: nowMs, revokedAtMs: null }
  const userAccessToken = newUserTokenValue()
  await domain.stores.oauth2Grants.create(grant, [{ token: userAccessToken, record: { kind: 'access', grantId: grant.id, createdAtMs: nowMs, expiresAtMs: nowMs + 3_600_000, spentAtMs: null } }], `code-${grant.id}`)
  return { app, user, consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret }, bearer: bearer.token, userAccessToken }
}
