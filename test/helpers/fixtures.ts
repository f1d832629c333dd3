import type { DomainDeps } from '../../src/domain/deps.ts'
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
