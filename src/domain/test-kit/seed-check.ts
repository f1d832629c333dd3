import type { z } from 'zod/v4'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { OFFLINE_ACCESS } from '../../protocol/oauth2/scopes.ts'
import { seedSchema, type Seed } from './seed-schema.ts'

/** One bad field of a seed: where it is (`apps[2].callbacks[0]`) and why. */
export interface SeedIssue {
  path: string
  reason: string
}

/**
 * A refused seed: its message is one `path: reason` line per bad field, and `fields` lists them for
 * the edges (a 400 of invalid parameters wherever it is shown). Nothing was written.
 */
export class SeedError extends ServiceError {
  readonly issues: readonly SeedIssue[]
  constructor(issues: readonly SeedIssue[]) {
    const message = issues.map((issue) => `${issue.path}: ${issue.reason}`).join('\n')
    super(E.invalidParameter, { message, field: issues[0]?.path ?? '', fields: issues.map((issue) => ({ field: issue.path, message: issue.reason })) })
    this.name = 'SeedError'
    this.issues = issues
  }
}

/** A path as a seed's author reads it: `apps[2].callbacks[0]`, `limits.endpoints["/2/users/me"]`. */
export function seedPath(path: ReadonlyArray<PropertyKey>): string {
  let text = ''
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(String(part))) text += text === '' ? String(part) : `.${String(part)}`
    else text += `[${JSON.stringify(String(part))}]`
  }
  return text || '(seed)'
}

/** zod's issues as seed issues: an unknown field is named itself. */
function issuesOf(error: z.core.$ZodError): SeedIssue[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: seedPath([...issue.path, key]), reason: 'is not a field of a seed' }))
      : [{ path: seedPath(issue.path), reason: issue.message }],
  )
}

/** The seed, checked field by field and then across its parts; SeedError listing every bad field otherwise. */
export function parseSeed(input: unknown): Seed {
  const parsed = seedSchema.safeParse(input)
  if (!parsed.success) throw new SeedError(issuesOf(parsed.error))
  const issues = crossReferences(parsed.data)
  if (issues.length > 0) throw new SeedError(issues)
  return parsed.data
}

const key = (text: string) => text.toLowerCase()

/** Each value of `items` named once: an issue at every repeat. */
function once<T>(items: readonly T[] | undefined, name: (item: T, i: number) => string, where: (i: number) => string, what: string): SeedIssue[] {
  const seen = new Set<string>()
  return (items ?? []).flatMap((item, i) => {
    const id = name(item, i)
    if (seen.has(id)) return [{ path: where(i), reason: `${what} is already in this seed` }]
    seen.add(id)
    return []
  })
}

/** What the schema of one field cannot say: names used twice, references, fields that need another. */
function crossReferences(seed: Seed): SeedIssue[] {
  const apps = new Map((seed.apps ?? []).map((app) => [key(app.name), app]))
  const { access_tokens: tokens = [], bearer_tokens: bearers = [], oauth2_grants: grants = [] } = seed.credentials ?? {}
  const unknownApp = (name: string, path: string): SeedIssue[] => (apps.has(key(name)) ? [] : [{ path, reason: `no app named ${name} in this seed` }])
  return [
    ...once(seed.people, (p) => key(p.screen_name), (i) => `people[${i}].screen_name`, 'this screen name'),
    ...once(seed.people, (p, i) => p.user_id ?? `#${i}`, (i) => `people[${i}].user_id`, 'this user id'),
    ...once(seed.apps, (a) => key(a.name), (i) => `apps[${i}].name`, 'this app name'),
    ...(seed.apps ?? []).flatMap((app, i) => clientFields(app, `apps[${i}]`)),
    ...tokens.flatMap((t, i) => unknownApp(t.app, `credentials.access_tokens[${i}].app`)),
    ...once(tokens, (t) => `${key(t.app)} ${key(t.person)} ${t.access_level ?? ''}`, (i) => `credentials.access_tokens[${i}]`, "this person's token for this app"),
    ...bearers.flatMap((b, i) => unknownApp(b.app, `credentials.bearer_tokens[${i}].app`)),
    ...once(bearers, (b) => key(b.app), (i) => `credentials.bearer_tokens[${i}].app`, "this app's bearer token"),
    ...grants.flatMap((g, i) => grantFields(g, apps.get(key(g.app)), `credentials.oauth2_grants[${i}]`)),
    ...once(grants, (g) => `${key(g.app)} ${key(g.person)}`, (i) => `credentials.oauth2_grants[${i}]`, "this person's grant for this app"),
  ]
}

function clientFields(app: NonNullable<Seed['apps']>[number], at: string): SeedIssue[] {
  const issues: SeedIssue[] = []
  if (app.oauth2_client_type === undefined && app.client_id !== undefined) issues.push({ path: `${at}.client_id`, reason: 'needs oauth2_client_type' })
  if (app.oauth2_client_type !== 'confidential' && app.client_secret !== undefined) issues.push({ path: `${at}.client_secret`, reason: 'only a confidential client has a secret' })
  return issues
}

function grantFields(grant: NonNullable<NonNullable<Seed['credentials']>['oauth2_grants']>[number], app: NonNullable<Seed['apps']>[number] | undefined, at: string): SeedIssue[] {
  if (!app) return [{ path: `${at}.app`, reason: `no app named ${grant.app} in this seed` }]
  const issues: SeedIssue[] = []
  if (app.oauth2_client_type === undefined) issues.push({ path: `${at}.app`, reason: `${grant.app} has no oauth2_client_type` })
  if (grant.refresh_token !== undefined && !grant.scopes.includes(OFFLINE_ACCESS)) issues.push({ path: `${at}.refresh_token`, reason: `needs the ${OFFLINE_ACCESS} scope` })
  return issues
}
