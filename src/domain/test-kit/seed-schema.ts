import { z } from 'zod/v4'
import { ServiceError } from '../../errors/service-error.ts'
import { SCOPES } from '../../protocol/oauth2/scopes.ts'
import { ACCESS_LEVELS, APP_TYPES, CLIENT_TYPES } from '../../storage/records.ts'
import { RATE_LIMITED_ENDPOINTS } from '../rate-limit-table.ts'
import { validateSettings, type AppSettings } from '../registry/apps.ts'
import { checkScreenName, validName, validPassword } from '../registry/users.ts'

/**
 * The seed file of the test kit (docs/test-kit.md): people, apps and ready credentials, in the
 * admin API's JSON names. Each field is checked by the rule the service itself keeps (the use
 * cases' validators, called here), and every fixed credential has the shape the service makes, so
 * that a real client takes it for one of X's. docs/seed.schema.json is generated from this schema.
 */

/** A domain rule as a zod check: what the rule throws becomes the field's reason. */
function rule<T>(check: (value: T) => unknown) {
  return (value: T, ctx: z.RefinementCtx<T>) => {
    try {
      check(value)
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error
      ctx.addIssue({ code: 'custom', message: error.message, input: value })
    }
  }
}

/** One app setting checked by the registry's own rule (validateSettings checks only what it is given). */
const appSetting = <T>(settings: (value: T) => AppSettings) => rule<T>((value) => validateSettings(settings(value)))

/** A value of this shape, as the service generates it: `what` says which in the refusal. */
const shaped = (pattern: RegExp, what: string) => z.string().regex(pattern, { message: `must be ${what}` })

const ALNUM = (min: number, max: number) => new RegExp(`^[A-Za-z0-9]{${min},${max}}$`)

/**
 * The formats of twitter-behaviour §2.7 and §9, as the service makes them (registry/apps.ts,
 * oauth1/issue-access-token.ts, protocol/secrets.ts, oauth2-user/clients.ts and token-values.ts).
 */
export const FORMATS = {
  userId: shaped(/^[1-9][0-9]{0,18}$/, 'a number of 1 to 19 digits, as X user ids are'),
  consumerKey: shaped(ALNUM(22, 25), '22 to 25 letters or digits'),
  consumerSecret: shaped(ALNUM(41, 50), '41 to 50 letters or digits'),
  accessToken: shaped(/^[1-9][0-9]{0,18}-[A-Za-z0-9]{30,40}$/, "the person's user id, a hyphen, then 30 to 40 letters or digits"),
  accessTokenSecret: shaped(ALNUM(40, 45), '40 to 45 letters or digits'),
  bearerToken: shaped(
    /^A{21}(?:[A-Za-z0-9]|%2B|%2F){20,80}%3D[A-Za-z0-9]{40,80}$/,
    '21 A, then letters, digits, %2B or %2F, a literal %3D, then 40 to 80 letters or digits (X\'s shape)',
  ),
  clientId: shaped(ALNUM(34, 34), '34 letters or digits'),
  clientSecret: shaped(ALNUM(50, 50), '50 letters or digits'),
  userToken: shaped(ALNUM(86, 86), '86 letters or digits'),
}

const password = z.string().superRefine(rule(validPassword))

const person = z
  .strictObject({
    screen_name: z.string().superRefine(rule(checkScreenName)),
    name: z.string().superRefine(rule(validName)).optional(),
    user_id: FORMATS.userId.optional(),
    password: password.optional(),
  })
  .describe('A person; their password is generated when not given (the same one every time this database is seeded).')

const callback = z.string().superRefine(appSetting((url: string) => ({ callbackUrls: [url] })))

const app = z
  .strictObject({
    name: z.string().superRefine(appSetting((name: string) => ({ name }))),
    owner: z.string().describe('The screen name of a person of this seed or of the database.'),
    description: z.string().superRefine(appSetting((description: string) => ({ description }))).optional(),
    website: z.string().superRefine(appSetting((website: string) => ({ website }))).optional(),
    type: z.enum(APP_TYPES).optional(),
    access_level: z.enum(ACCESS_LEVELS).optional(),
    // Each callback on its own (its index in the path), then the list's own rule (how many).
    callbacks: z
      .array(callback)
      .superRefine((urls, ctx) => {
        if (urls.every((url) => callback.safeParse(url).success)) rule<string[]>((callbackUrls) => validateSettings({ callbackUrls }))(urls, ctx)
      })
      .optional(),
    sign_in: z.boolean().optional(),
    oauth2_client_type: z.enum(CLIENT_TYPES).optional().describe('OAuth 2.0 user context for this app; none when not given.'),
    consumer_key: FORMATS.consumerKey.optional(),
    consumer_secret: FORMATS.consumerSecret.optional(),
    client_id: FORMATS.clientId.optional(),
    client_secret: FORMATS.clientSecret.optional(),
  })
  .describe('An app, named by its name elsewhere in the seed; its keys are generated when not given.')

const accessToken = z
  .strictObject({
    app: z.string(),
    person: z.string().describe('A screen name.'),
    access_level: z.enum(ACCESS_LEVELS).optional().describe("The app's access level when not given."),
    token: FORMATS.accessToken.optional(),
    secret: FORMATS.accessTokenSecret.optional(),
  })
  .describe('An OAuth 1.0a access token of a person for an app.')

const bearerToken = z.strictObject({ app: z.string(), token: FORMATS.bearerToken.optional() }).describe("An app's app-only OAuth 2.0 bearer token.")

const oauth2Grant = z
  .strictObject({
    app: z.string(),
    person: z.string().describe('A screen name.'),
    scopes: z.array(z.enum(Object.keys(SCOPES) as [keyof typeof SCOPES, ...(keyof typeof SCOPES)[]])).min(1),
    access_token: FORMATS.userToken.optional(),
    refresh_token: FORMATS.userToken.optional().describe('Only with the offline.access scope.'),
  })
  .describe('An OAuth 2.0 user-context grant (the app needs oauth2_client_type) with its access token, and a refresh token with offline.access.')

const RESOURCES = RATE_LIMITED_ENDPOINTS.map((endpoint) => endpoint.resource)
const endpointLimit = z.number().int().min(1).max(1_000_000)

const limits = z
  .strictObject({
    multiplier: z.number().gt(0).max(1000).optional().describe('Every endpoint limit times this.'),
    endpoints: z.strictObject(Object.fromEntries(RESOURCES.map((resource) => [resource, endpointLimit.optional()]))).optional(),
  })
  .describe('Rate limits for a test run.')

/** A bound on each list: a seed is a test's fixture, and each person costs a password hash. */
const MAX_ITEMS = 1000
const list = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_ITEMS)

export const seedSchema = z
  .strictObject({
    people: list(person).optional(),
    apps: list(app).optional(),
    credentials: z
      .strictObject({
        access_tokens: list(accessToken).optional(),
        bearer_tokens: list(bearerToken).optional(),
        oauth2_grants: list(oauth2Grant).optional(),
      })
      .optional(),
    limits: limits.optional(),
  })
  .describe('A Latchkey seed file: people, apps and ready credentials, each value fixed when given and generated otherwise.')

export type Seed = z.infer<typeof seedSchema>
export type SeedPerson = z.infer<typeof person>
export type SeedApp = z.infer<typeof app>
export type SeedAccessToken = z.infer<typeof accessToken>
export type SeedBearerToken = z.infer<typeof bearerToken>
export type SeedGrant = z.infer<typeof oauth2Grant>

/** The published JSON Schema of a seed file (docs/seed.schema.json). */
export function seedJsonSchema(): object {
  return { title: 'Latchkey seed file', ...z.toJSONSchema(seedSchema, { target: 'draft-2020-12', io: 'input' }) }
}
