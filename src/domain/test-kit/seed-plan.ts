import type { AppRecord, OAuth2ClientRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import { verifyPassword } from '../passwords.ts'
import { findByScreenName } from '../registry/users.ts'
import { appIfKeyWorks } from '../key-grace.ts'
import type { SeedIssue } from './seed-check.ts'
import type { Seed, SeedApp, SeedPerson } from './seed-schema.ts'
import { derivedSeedValue } from './seed-values.ts'

/** What this use case touches. */
export type SeedPlanDeps = Pick<DomainDeps, 'stores' | 'clock' | 'runtime'>

/**
 * What the database already holds of a seed, read before anything is written, and every way the
 * seed contradicts it (a fixed value another person, app or token already has): a SeedError then,
 * and nothing written. Seeding the same file again finds everything and contradicts nothing.
 */
export interface SeedPlan {
  people: Map<string, { seed: SeedPerson; existing: UserRecord | undefined; password: string }>
  /** The people credentials and apps name who are not in the seed: found in the database. */
  others: Map<string, UserRecord>
  apps: Map<string, { seed: SeedApp; existing: AppRecord | undefined; client: OAuth2ClientRecord | undefined }>
}

export const nameKey = (text: string) => text.toLowerCase()

const PASSWORD_LENGTH = 24

/** The plan, and every contradiction of people and apps (the credentials' are seed-credentials.ts's). */
export async function planSeed(deps: SeedPlanDeps, seed: Seed): Promise<{ plan: SeedPlan; issues: SeedIssue[] }> {
  const issues: SeedIssue[] = []
  const plan: SeedPlan = { people: new Map(), others: new Map(), apps: new Map() }
  for (const [i, person] of (seed.people ?? []).entries()) {
    const existing = await findByScreenName(deps, person.screen_name)
    const password = person.password ?? derivedSeedValue(deps, `password ${nameKey(person.screen_name)}`, PASSWORD_LENGTH)
    plan.people.set(nameKey(person.screen_name), { seed: person, existing, password })
    issues.push(...(await personConflicts(deps, person, existing, password, `people[${i}]`)))
  }
  const mentioned = [
    ...(seed.apps ?? []).map((app, i) => [app.owner, `apps[${i}].owner`] as const),
    ...(seed.credentials?.access_tokens ?? []).map((t, i) => [t.person, `credentials.access_tokens[${i}].person`] as const),
    ...(seed.credentials?.oauth2_grants ?? []).map((g, i) => [g.person, `credentials.oauth2_grants[${i}].person`] as const),
  ]
  for (const [screenName, path] of mentioned) {
    if (plan.people.has(nameKey(screenName))) continue
    const found = await findByScreenName(deps, screenName)
    if (found) plan.others.set(nameKey(screenName), found)
    else issues.push({ path, reason: `no person @${screenName} in this seed or the database` })
  }
  for (const [i, app] of (seed.apps ?? []).entries()) {
    const ownerId = userIdOf(plan, app.owner)
    const existing = ownerId === undefined ? undefined : await findOwnedApp(deps, ownerId, app.name)
    const client = existing ? await deps.stores.oauth2Clients.findByAppId(existing.id) : undefined
    plan.apps.set(nameKey(app.name), { seed: app, existing, client })
    issues.push(...(await appConflicts(deps, app, existing, client, `apps[${i}]`)))
  }
  return { plan, issues }
}

/** The user id of a screen name of the plan, when it is known before writing (an existing person, or a fixed id). */
export function userIdOf(plan: SeedPlan, screenName: string): string | undefined {
  const person = plan.people.get(nameKey(screenName))
  return person ? (person.existing?.id ?? person.seed.user_id) : plan.others.get(nameKey(screenName))?.id
}

async function findOwnedApp(deps: SeedPlanDeps, ownerId: string, name: string): Promise<AppRecord | undefined> {
  const apps = await deps.stores.listings.appsPage({ ownerId, limit: 10_000 })
  return apps.find((app) => nameKey(app.name) === nameKey(name.trim()))
}

async function personConflicts(deps: SeedPlanDeps, person: SeedPerson, existing: UserRecord | undefined, password: string, at: string): Promise<SeedIssue[]> {
  if (!existing) {
    const holder = person.user_id === undefined ? undefined : await deps.stores.users.findById(person.user_id)
    return holder ? [{ path: `${at}.user_id`, reason: `@${holder.screenName} already has this user id` }] : []
  }
  const issues: SeedIssue[] = []
  if (person.user_id !== undefined && person.user_id !== existing.id) issues.push({ path: `${at}.user_id`, reason: `@${existing.screenName} already exists with user id ${existing.id}` })
  if (!(await verifyPassword(password, existing.passwordHash))) {
    issues.push({ path: `${at}.password`, reason: `@${existing.screenName} already exists with another password` })
  }
  return issues
}

async function appConflicts(deps: SeedPlanDeps, app: SeedApp, existing: AppRecord | undefined, client: OAuth2ClientRecord | undefined, at: string): Promise<SeedIssue[]> {
  const issues: SeedIssue[] = []
  const differs = (field: keyof SeedApp, given: string | undefined, held: string | null | undefined) => {
    if (given !== undefined && held !== undefined && held !== null && given !== held) issues.push({ path: `${at}.${field}`, reason: `${app.name} already exists with another ${field}` })
  }
  if (existing) {
    differs('consumer_key', app.consumer_key, existing.consumerKey)
    differs('consumer_secret', app.consumer_secret, existing.consumerSecret)
    // A client keeps its id when its type changes; its secret is made anew only when it becomes confidential.
    differs('client_id', app.client_id, client?.clientId)
    differs('client_secret', app.client_secret, client?.type === app.oauth2_client_type ? client?.clientSecret : undefined)
    return issues
  }
  if (app.consumer_key !== undefined && appIfKeyWorks(await deps.stores.apps.findByConsumerKey(app.consumer_key), deps.clock.nowMs())) issues.push({ path: `${at}.consumer_key`, reason: 'another app has this consumer key' })
  if (app.client_id !== undefined && (await deps.stores.oauth2Clients.findByClientId(app.client_id))) issues.push({ path: `${at}.client_id`, reason: 'another app has this client id' })
  return issues
}
