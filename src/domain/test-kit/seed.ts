import { readFile } from 'node:fs/promises'
import { randomAlphanumeric } from '../../protocol/secrets.ts'
import type { AppRecord, OAuth2ClientRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'
import { setOAuth2Client } from '../oauth2-user/clients.ts'
import { createApp, newConsumerKeys, updateApp, validateSettings, type AppSettings, type ConsumerKeys } from '../registry/apps.ts'
import { updateUser } from '../admin/people.ts'
import { createUser, validName } from '../registry/users.ts'
import { appJson } from '../vocabulary.ts'
import { parseSeed, SeedError } from './seed-check.ts'
import { credentialConflicts, seedAccessToken, seedBearerToken, seedGrant } from './seed-credentials.ts'
import { nameKey, planSeed, type SeedPlan } from './seed-plan.ts'
import type { Seed, SeedApp } from './seed-schema.ts'

/** What this use case touches. */
export type SeedDeps = Pick<DomainDeps, 'stores' | 'clock' | 'newId' | 'runtime' | 'observe'>

export { SeedError, type SeedIssue } from './seed-check.ts'

/** The limits a seed asks for (the test mode hands them to the limiters). */
export interface SeedLimits {
  multiplier: number
  endpoints: Partial<Record<RateLimitedResource, number>>
}

/**
 * What a seed made or found, every value included, in the admin API's JSON names: what the test
 * mode prints on its start line and what a client's tests read their credentials from.
 */
export interface SeedResult {
  people: Array<{ user_id: string; screen_name: string; name: string; password: string }>
  apps: Array<ReturnType<typeof appJson>>
  credentials: {
    access_tokens: Array<{ app: string; app_id: string; person: string; user_id: string; access_level: string; token: string; secret: string }>
    bearer_tokens: Array<{ app: string; app_id: string; token: string }>
    oauth2_grants: Array<{ app: string; app_id: string; client_id: string | null; person: string; user_id: string; scopes: string[]; access_token: string; refresh_token: string | null; expires_at: string }>
  }
  limits: SeedLimits
}

/**
 * Applies a seed: checks it whole (SeedError naming every bad field, nothing written), then makes
 * the people, apps and credentials it names that do not exist yet, through the use cases. The same
 * seed again changes nothing and answers the same values.
 */
export async function applySeed(deps: SeedDeps, input: unknown): Promise<SeedResult> {
  const seed = parseSeed(input)
  const { plan, issues } = await planSeed(deps, seed)
  issues.push(...(await credentialConflicts(deps, seed, plan)))
  if (issues.length > 0) throw new SeedError(issues)
  const people = new Map<string, UserRecord>(plan.others)
  const result: SeedResult = { people: [], apps: [], credentials: { access_tokens: [], bearer_tokens: [], oauth2_grants: [] }, limits: seedLimitsOf(seed) }
  for (const [key, person] of plan.people) {
    const user = await seedPerson(deps, person)
    people.set(key, user)
    result.people.push({ user_id: user.id, screen_name: user.screenName, name: user.name, password: person.password })
  }
  const apps = new Map<string, { app: AppRecord; client: OAuth2ClientRecord | undefined }>()
  for (const [key, planned] of plan.apps) {
    const made = await seedApp(deps, planned, people.get(nameKey(planned.seed.owner))!)
    apps.set(key, made)
    result.apps.push(appJson(made.app, { withSecret: true, client: made.client, newSecret: made.client?.clientSecret ?? undefined }))
  }
  await seedCredentials(deps, seed, { people, apps }, result.credentials)
  return result
}

/** A seed file's JSON; a file that cannot be read or is not JSON is a SeedError. */
export async function readSeedFile(path: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new SeedError([{ path: '(file)', reason: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}` }])
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new SeedError([{ path: '(file)', reason: `${path} is not JSON: ${(error as Error).message}` }])
  }
}

/** applySeed of a JSON file. */
export async function applySeedFile(deps: SeedDeps, path: string): Promise<SeedResult> {
  return applySeed(deps, await readSeedFile(path))
}

/** The limits a seed result asks for. */
export const seedLimits = (result: SeedResult): SeedLimits => result.limits

function seedLimitsOf(seed: Seed): SeedLimits {
  return { multiplier: seed.limits?.multiplier ?? 1, endpoints: { ...(seed.limits?.endpoints ?? {}) } as SeedLimits['endpoints'] }
}

/** The person made, or as they exist with the seed's name where it differs. */
async function seedPerson(deps: SeedDeps, person: SeedPlan['people'] extends Map<string, infer P> ? P : never): Promise<UserRecord> {
  const { seed: given, existing, password } = person
  if (!existing) {
    return createUser(deps, { screenName: given.screen_name, password, ...(given.name === undefined ? {} : { name: given.name }), ...(given.user_id === undefined ? {} : { id: given.user_id }) })
  }
  const isRenamed = given.name !== undefined && validName(given.name) !== existing.name
  return isRenamed ? updateUser(deps, existing.id, { name: given.name! }) : existing
}

/** The seed's settings of an app in the registry's terms: only those it gives. */
function settingsOf(app: SeedApp): AppSettings {
  const settings: AppSettings = {
    description: app.description,
    website: app.website,
    callbackUrls: app.callbacks,
    accessLevel: app.access_level,
    type: app.type,
    isSignInEnabled: app.sign_in,
  }
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as AppSettings
}

function keysOf(app: SeedApp): ConsumerKeys | undefined {
  if (app.consumer_key === undefined && app.consumer_secret === undefined) return undefined
  const drawn = newConsumerKeys()
  return { consumerKey: app.consumer_key ?? drawn.consumerKey, consumerSecret: app.consumer_secret ?? drawn.consumerSecret }
}

/** The app made, or as it exists with the seed's settings where they differ; its OAuth 2.0 client as the seed says. */
async function seedApp(deps: SeedDeps, planned: SeedPlan['apps'] extends Map<string, infer P> ? P : never, owner: UserRecord) {
  const { seed: given, existing } = planned
  const settings = settingsOf(given)
  let app = existing ?? (await createApp(deps, { ...settings, name: given.name, owner: owner.id, keys: keysOf(given) }, { beyondAppLimit: true }))
  if (existing) {
    const patch = validateSettings(settings) as Record<string, unknown>
    const changed = Object.keys(patch).filter((field) => JSON.stringify(patch[field]) !== JSON.stringify(existing[field as keyof AppRecord]))
    if (changed.length > 0) app = await updateApp(deps, existing.id, Object.fromEntries(changed.map((field) => [field, settings[field as keyof AppSettings]])))
  }
  if (given.oauth2_client_type === undefined) return { app, client: planned.client }
  const values = { clientId: given.client_id, clientSecret: given.client_secret ?? (given.oauth2_client_type === 'confidential' ? randomAlphanumeric(50) : undefined) }
  const { client } = await setOAuth2Client(deps, { appId: app.id, setting: given.oauth2_client_type, values })
  return { app, client }
}

interface Made {
  people: Map<string, UserRecord>
  apps: Map<string, { app: AppRecord; client: OAuth2ClientRecord | undefined }>
}

async function seedCredentials(deps: SeedDeps, seed: Seed, made: Made, out: SeedResult['credentials']): Promise<void> {
  const { access_tokens: tokens = [], bearer_tokens: bearers = [], oauth2_grants: grants = [] } = seed.credentials ?? {}
  for (const token of tokens) {
    const { app } = made.apps.get(nameKey(token.app))!
    const user = made.people.get(nameKey(token.person))!
    const issued = await seedAccessToken(deps, token, app, user, token.access_level ?? app.accessLevel)
    out.access_tokens.push({ app: app.name, app_id: app.id, person: user.screenName, user_id: user.id, access_level: issued.accessLevel, token: issued.token, secret: issued.secret })
  }
  for (const bearer of bearers) {
    const { app } = made.apps.get(nameKey(bearer.app))!
    out.bearer_tokens.push({ app: app.name, app_id: app.id, token: (await seedBearerToken(deps, app, bearer.token)).token })
  }
  for (const grant of grants) {
    const { app, client } = made.apps.get(nameKey(grant.app))!
    const user = made.people.get(nameKey(grant.person))!
    const values = await seedGrant(deps, grant, app, user)
    out.oauth2_grants.push({
      app: app.name,
      app_id: app.id,
      client_id: client?.clientId ?? null,
      person: user.screenName,
      user_id: user.id,
      scopes: grant.scopes,
      access_token: values.access,
      refresh_token: values.refresh ?? null,
      expires_at: new Date(values.expiresAtMs).toISOString(),
    })
  }
}
