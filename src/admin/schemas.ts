import { PROBLEM_SCHEMA } from './problem.ts'
import { MAX_PAGE } from './pagination.ts'

/**
 * The admin API's JSON schemas: Fastify validates requests and serializes answers with them, and
 * @fastify/swagger builds the OpenAPI document from the same objects. Every field has a type and a
 * bound; request bodies refuse unknown fields. The domain checks its rules again (the CLI has no
 * schema): the schema states the wire format, the domain the rules.
 */

export const ID = { type: 'string', pattern: '^[0-9]{1,20}$', description: 'A numeric id, as a string.' } as const
const TIME = { type: 'string', format: 'date-time' } as const
const CALLBACK = { type: 'string', minLength: 1, maxLength: 1024 } as const
export const ACCESS_LEVEL_INPUT = { type: 'string', enum: ['read', 'write', 'read-write', 'read-write-directmessages'] } as const
const ACCESS_LEVEL = { type: 'string', enum: ['read', 'read-write', 'read-write-directmessages'] } as const
const SIGNATURE_METHOD = { type: 'string', enum: ['HMAC-SHA1', 'HMAC-SHA256', 'PLAINTEXT'] } as const

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: PROBLEM_SCHEMA } } })

/** The problems every admin operation can answer with, plus those it names. */
export function responses(ok: Record<number, unknown>, ...extra: Array<400 | 404 | 409>) {
  const named: Record<number, unknown> = {
    401: problem('No admin token, or an unknown or revoked one.'),
    429: problem("The admin token's rate limit is used up."),
  }
  if (extra.includes(400)) named[400] = problem('A field is missing, unknown, of the wrong type or out of bounds (`errors` names each).')
  if (extra.includes(404)) named[404] = problem('No such record.')
  if (extra.includes(409)) named[409] = problem('The name is taken.')
  return { ...ok, ...named }
}

export const json = (description: string, schema: object) => ({ description, content: { 'application/json': { schema } } })
export const noContent = { 204: { description: 'Done.', type: 'null' } }

export const listQuery = (filters: Record<string, object>) => ({
  type: 'object',
  properties: {
    ...filters,
    cursor: { type: 'string', minLength: 1, maxLength: 200, description: 'The next_cursor of the page before.' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 50 },
  },
  additionalProperties: false,
})

export const listOf = (item: object) => ({
  type: 'object',
  required: ['data', 'next_cursor'],
  properties: { data: { type: 'array', items: item }, next_cursor: { type: ['string', 'null'] } },
  additionalProperties: false,
})

export const USER = {
  type: 'object',
  required: ['user_id', 'screen_name', 'name', 'created_at', 'disabled'],
  properties: { user_id: ID, screen_name: { type: 'string' }, name: { type: 'string' }, created_at: TIME, disabled: { type: 'boolean' }, email: { type: 'string', description: 'Present when the person has one.' } },
  additionalProperties: false,
} as const

export const NEW_USER = {
  type: 'object',
  required: ['screen_name', 'password'],
  properties: {
    screen_name: { type: 'string', pattern: '^[A-Za-z0-9_]{1,15}$' },
    password: { type: 'string', minLength: 8, maxLength: 1024 },
    name: { type: 'string', minLength: 1, maxLength: 50 },
    email: { type: 'string', maxLength: 254, description: 'Unique without regard to case: 409 code 1120 when another person has it.' },
  },
  additionalProperties: false,
} as const

export const USER_PATCH = {
  type: 'object',
  minProperties: 1,
  properties: {
    name: NEW_USER.properties.name,
    password: NEW_USER.properties.password,
    disabled: { type: 'boolean', description: 'A disabled person cannot sign in; their access tokens get 401 code 89 while disabled.' },
    email: { type: ['string', 'null'], maxLength: 254, description: 'A new e-mail address (409 code 1120 when another person has it), or null for none.' },
  },
  additionalProperties: false,
} as const

const APP_FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: 64 },
  callbacks: { type: 'array', maxItems: 10, items: CALLBACK },
  type: { type: 'string', enum: ['web', 'desktop'] },
  sign_in: { type: 'boolean' },
  access_level: ACCESS_LEVEL_INPUT,
  description: { type: 'string', maxLength: 500 },
  website: { type: 'string', maxLength: 1024 },
  resource_server: { type: 'boolean' },
  signature_methods: { type: 'array', minItems: 1, maxItems: 3, uniqueItems: true, items: SIGNATURE_METHOD },
  oauth2_enabled: {
    type: 'boolean',
    description: 'OAuth 2.0 user context (X: "User authentication settings"). Turning it off, or changing client_type, ends every grant the app holds.',
  },
  client_type: { type: 'string', enum: ['confidential', 'public'], description: 'With oauth2_enabled: a confidential client gets a client secret (shown once), a public one none. Default confidential.' },
} as const

/** Who owns an app, as the CLI's --owner takes it too: a user_id, or a screen name (any case, a leading @ allowed). */
export const OWNER = { type: 'string', pattern: '^(?:[0-9]{1,20}|@?[A-Za-z0-9_]{1,15})$', description: 'A user_id, or a screen name.' } as const

/** A new app: only its name and owner are needed; the rest has the defaults of every door (APP_DEFAULTS). */
export const NEW_APP = {
  type: 'object',
  required: ['name', 'owner'],
  properties: {
    ...APP_FIELDS,
    owner: { ...OWNER, description: 'The owner: a user_id, or a screen name.' },
    beyond_app_limit: {
      type: 'boolean',
      description: 'A developer may own at most 100 apps (400 past it); true registers this one beyond that limit.',
    },
  },
  additionalProperties: false,
} as const

export const APP_PATCH = {
  type: 'object',
  minProperties: 1,
  properties: { ...APP_FIELDS, suspended: { type: 'boolean' } },
  additionalProperties: false,
} as const

const APP_PROPERTIES = {
  app_id: ID,
  name: { type: 'string' },
  owner: ID,
  consumer_key: { type: 'string' },
  callbacks: { type: 'array', items: { type: 'string' } },
  type: { type: 'string', enum: ['web', 'desktop'] },
  sign_in: { type: 'boolean' },
  access_level: ACCESS_LEVEL,
  description: { type: 'string' },
  website: { type: 'string' },
  resource_server: { type: 'boolean' },
  signature_methods: { type: 'array', items: SIGNATURE_METHOD },
  suspended: { type: 'boolean' },
  created_at: TIME,
  updated_at: TIME,
} as const

/** Its OAuth 2.0 client, in every answer about an app; the secret only in the answer that made it. */
const OAUTH2_PROPERTIES = {
  oauth2_enabled: { type: 'boolean' },
  client_type: { type: ['string', 'null'], enum: ['confidential', 'public', null] },
  client_id: { type: ['string', 'null'] },
  client_secret: { type: 'string', description: 'Only in the answer that made it.' },
} as const
const OAUTH2_REQUIRED = ['oauth2_enabled', 'client_type', 'client_id']

export const APP = {
  type: 'object',
  required: [...Object.keys(APP_PROPERTIES), ...OAUTH2_REQUIRED],
  properties: { ...APP_PROPERTIES, ...OAUTH2_PROPERTIES },
  additionalProperties: false,
} as const

export const APP_WITH_SECRET = {
  type: 'object',
  required: [...Object.keys(APP_PROPERTIES), ...OAUTH2_REQUIRED, 'consumer_secret'],
  properties: { ...APP_PROPERTIES, ...OAUTH2_PROPERTIES, consumer_secret: { type: 'string' } },
  additionalProperties: false,
} as const

export const OWNER_TOKEN = {
  type: 'object',
  required: ['oauth_token', 'oauth_token_secret', 'user_id', 'screen_name'],
  properties: { oauth_token: { type: 'string' }, oauth_token_secret: { type: 'string' }, user_id: ID, screen_name: { type: 'string' } },
  additionalProperties: false,
} as const

export const AUTHORIZATION = {
  type: 'object',
  required: ['app_id', 'app_name', 'access_level', 'authorized_at'],
  properties: {
    app_id: ID,
    app_name: { type: 'string' },
    access_level: ACCESS_LEVEL,
    authorized_at: TIME,
    scopes: { type: 'array', items: { type: 'string' }, description: "What the person's OAuth 2.0 grants to the app allow (X's scopes); absent when it holds only OAuth 1.0a tokens." },
  },
  additionalProperties: false,
} as const

export const AUDIT_EVENT = {
  type: 'object',
  required: ['at', 'event', 'app_id', 'user_id', 'address', 'detail'],
  properties: {
    at: TIME,
    event: { type: 'string' },
    app_id: { type: ['string', 'null'] },
    user_id: { type: ['string', 'null'] },
    address: { type: ['string', 'null'] },
    detail: { type: ['object', 'null'], additionalProperties: true },
  },
  additionalProperties: false,
} as const

export const params = (...names: string[]) => ({
  type: 'object',
  required: names,
  properties: Object.fromEntries(names.map((n) => [n, ID])),
  additionalProperties: false,
})

export const ROTATION = {
  type: 'object',
  properties: {
    grace_seconds: { type: 'integer', minimum: 1, maximum: 604800, description: 'The old key pair keeps working this long (at most 7 days).' },
    revoke_tokens: {
      type: 'boolean',
      description: 'Revoke every request, access and bearer token issued to the app. Default: true without grace_seconds, false with it.',
    },
  },
  additionalProperties: false,
} as const

export const CLIENT_SECRET_ROTATION = {
  type: 'object',
  properties: {
    grace_seconds: {
      type: 'integer',
      minimum: 1,
      maximum: 604800,
      description: 'The old client secret keeps working this long (at most 7 days), and the grants stay. Without it, the old secret and every grant of the app end at once.',
    },
  },
  additionalProperties: false,
} as const

export const CLIENT_SECRET_ROTATED = {
  type: 'object',
  required: ['client_id', 'client_secret', 'previous_secret_expires_at'],
  properties: { client_id: { type: 'string' }, client_secret: { type: 'string' }, previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time' } },
  additionalProperties: false,
} as const

export const ROTATED = {
  type: 'object',
  required: ['consumer_key', 'consumer_secret', 'previous_key_expires_at'],
  properties: { consumer_key: { type: 'string' }, consumer_secret: { type: 'string' }, previous_key_expires_at: { type: ['string', 'null'], format: 'date-time' } },
  additionalProperties: false,
} as const

const NULLABLE_TIME = { type: ['string', 'null'], format: 'date-time' } as const

/** A webhook endpoint of the revocation push (never its secret, but once, at registration). */
export const WEBHOOK = {
  type: 'object',
  required: ['id', 'url', 'app_id', 'created_at', 'verified', 'last_success_at', 'last_error', 'last_error_at'],
  properties: {
    id: ID,
    url: { type: 'string' },
    app_id: { type: ['string', 'null'], description: "Only this app's events; null: every event." },
    created_at: TIME,
    verified: { type: 'boolean', description: 'Whether the receiver answered the CRC challenge: nothing is sent before.' },
    last_success_at: NULLABLE_TIME,
    last_error: { type: ['string', 'null'] },
    last_error_at: NULLABLE_TIME,
  },
  additionalProperties: false,
} as const

export const WEBHOOK_STATUS = {
  ...WEBHOOK,
  required: [...WEBHOOK.required, 'pending', 'failed'],
  properties: {
    ...WEBHOOK.properties,
    pending: { type: 'integer', description: 'Events waiting to be delivered.' },
    failed: { type: 'integer', description: 'Events not delivered within the revocation retention (replay sends them again).' },
  },
} as const

export const NEW_WEBHOOK = {
  type: 'object',
  required: ['url'],
  properties: { url: { type: 'string', minLength: 1, maxLength: 2048 }, app_id: ID },
  additionalProperties: false,
} as const

/** One of the two: every event since a time, or the failed ones. */
export const REPLAY = {
  type: 'object',
  properties: {
    since: { type: 'string', format: 'date-time', description: 'Queue every event at or after this time again.' },
    failed: { type: 'boolean', const: true, description: "Queue the endpoint's failed events again." },
  },
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false,
} as const
