import type { Kysely, Selectable } from 'kysely'
import type { AccessTokenRecord, AppRecord, BearerTokenRecord, UserRecord } from '../records.ts'
import type { AppByConsumerKey, CredentialLookup } from '../types.ts'
import type { Sealer } from '../sealing/sealer.ts'
import type { AccessTokensTable, AppsTable, BearerTokensTable, Database, UsersTable } from './schema.ts'
import { preparedLookup } from './prepared.ts'
import { toAccessToken, toApp, toBearerToken, toUser } from './rows.ts'

/**
 * The lookups every verified request makes, compiled once (prepared.ts), for the stores of
 * registry-stores.ts and token-stores.ts. They name their columns instead of `select *`: PostgreSQL
 * refuses to run a prepared `select *` once a migration has added a column to its table ("cached
 * plan must not change result type"), which would break the instances still running during an upgrade.
 */

/** A list of every column of T: the compiler rejects it when one is missing. */
const columnsOf =
  <T>() =>
  <const C extends ReadonlyArray<keyof T & string>>(columns: C & ([Exclude<keyof T, C[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, C[number]> })) =>
    columns

const USER_COLUMNS = columnsOf<UsersTable>()(['id', 'screen_name', 'screen_name_lower', 'name', 'password_hash', 'created_at_ms', 'disabled_at_ms', 'session_generation', 'email', 'email_lower'])
// Every column but name_key, which only the unique index of migration 008 reads.
const APP_COLUMNS = columnsOf<Omit<AppsTable, 'name_key'>>()([
  'id',
  'name',
  'description',
  'website',
  'owner_id',
  'consumer_key',
  'consumer_key_hash',
  'consumer_secret',
  'callback_urls',
  'access_level',
  'app_type',
  'sign_in_enabled',
  'signature_methods',
  'is_suspended',
  'suspended_by',
  'is_resource_server',
  'created_at_ms',
  'updated_at_ms',
])
const ACCESS_TOKEN_COLUMNS = columnsOf<AccessTokensTable>()(['token', 'token_hash', 'secret', 'app_id', 'user_id', 'access_level', 'created_at_ms', 'revoked_at_ms'])
const BEARER_TOKEN_COLUMNS = columnsOf<BearerTokensTable>()(['token', 'token_hash', 'app_id', 'created_at_ms', 'revoked_at_ms'])

/** `table.column` for each column. */
const qualified = <T extends string, C extends string>(table: T, columns: readonly C[]) => columns.map((c) => `${table}.${c}` as `${T}.${C}`)

/**
 * `table.column as <prefix>column` for each column: a joined table's columns, kept apart from the
 * main table's. The prefix ends in `__`, which no column name has (`app_` + `id` is bearer_tokens.app_id).
 */
const prefixed = <T extends string, C extends string, P extends `${string}__`>(table: T, columns: readonly C[], prefix: P) =>
  columns.map((c) => `${table}.${c} as ${prefix}${c}` as { [K in C]: `${T}.${K} as ${P}${K}` }[C])

/** Reads the joined table's row out of a row of `prefixed` columns; undefined when the left join found none. */
function joined<T>(prefix: string, columns: ReadonlyArray<keyof T & string>): (row: object) => Selectable<T> | undefined {
  const names = columns.map((c) => [c, `${prefix}${c}`] as const)
  return (row) => {
    const values = row as Record<string, unknown>
    if (values[names[0]![1]] === null) return undefined
    const found: Record<string, unknown> = {}
    for (const [column, name] of names) found[column] = values[name]
    return found as Selectable<T>
  }
}
const ownerOf = joined<UsersTable>('owner__', USER_COLUMNS)
const appOf = joined<AppsTable>('app__', APP_COLUMNS)
const tokenOf = joined<AccessTokensTable>('token__', ACCESS_TOKEN_COLUMNS)

const userById = preparedLookup((db: Kysely<Database>, id: string) => db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id))
const appById = preparedLookup((db: Kysely<Database>, id: string) => db.selectFrom('apps').select(APP_COLUMNS).where('id', '=', id))
const appByKeyHash = preparedLookup((db: Kysely<Database>, keyHash: string) =>
  db.selectFrom('apps').select(APP_COLUMNS).where('consumer_key_hash', '=', keyHash),
)
/** An app by a rotated-out consumer key (AppStore.rotateKeys), with that old pair and when it stops working. */
const appByPreviousKeyHash = preparedLookup((db: Kysely<Database>, keyHash: string) =>
  db
    .selectFrom('previous_consumer_keys')
    .innerJoin('apps', 'apps.id', 'previous_consumer_keys.app_id')
    .select(qualified('apps', APP_COLUMNS))
    .select([
      'previous_consumer_keys.consumer_key as previous__consumer_key',
      'previous_consumer_keys.consumer_secret as previous__consumer_secret',
      'previous_consumer_keys.expires_at_ms as previous__expires_at_ms',
    ])
    .where('previous_consumer_keys.consumer_key_hash', '=', keyHash),
)
const accessTokenByHash = preparedLookup((db: Kysely<Database>, tokenHash: string) =>
  db.selectFrom('access_tokens').select(ACCESS_TOKEN_COLUMNS).where('token_hash', '=', tokenHash),
)
/**
 * The app, the access token and its owner, each left-joined to a one-row source so that the
 * statement answers exactly one row whatever exists: the verifier's work does not depend on which
 * of its credentials are known (src/domain/oauth1/verify-signed-request.ts). Both lookups go through
 * unique indexes; the token is found whatever its app, which the verifier checks.
 */
const consumerWithAccessTokenByHashes = preparedLookup((db: Kysely<Database>, keyHash: string, tokenHash: string) =>
  db
    .selectFrom(db.selectNoFrom((eb) => eb.lit(1).as('one')).as('probe'))
    .leftJoin('apps', (join) => join.on('apps.consumer_key_hash', '=', keyHash))
    .leftJoin('access_tokens', (join) => join.on('access_tokens.token_hash', '=', tokenHash))
    .leftJoin('users', 'users.id', 'access_tokens.user_id')
    .select(prefixed('apps', APP_COLUMNS, 'app__'))
    .select(prefixed('access_tokens', ACCESS_TOKEN_COLUMNS, 'token__'))
    .select(prefixed('users', USER_COLUMNS, 'owner__')),
)
const bearerTokenByHash = preparedLookup((db: Kysely<Database>, tokenHash: string) =>
  db.selectFrom('bearer_tokens').select(BEARER_TOKEN_COLUMNS).where('token_hash', '=', tokenHash),
)
const liveBearerTokenOfApp = preparedLookup((db: Kysely<Database>, appId: string) =>
  db.selectFrom('bearer_tokens').select(BEARER_TOKEN_COLUMNS).where('app_id', '=', appId).where('revoked_at_ms', 'is', null),
)
const bearerTokenWithAppByHash = preparedLookup((db: Kysely<Database>, tokenHash: string) =>
  db
    .selectFrom('bearer_tokens')
    .leftJoin('apps', 'apps.id', 'bearer_tokens.app_id')
    .select(qualified('bearer_tokens', BEARER_TOKEN_COLUMNS))
    .select(prefixed('apps', APP_COLUMNS, 'app__'))
    .where('bearer_tokens.token_hash', '=', tokenHash),
)

/**
 * A record found by the keyed hash of a secret value (a token, a consumer key): the value itself is
 * never a column to search (src/storage/sealing/sealer.ts).
 */
function byKeyedHash<Row, R>(lookup: (db: Kysely<Database>, hash: string) => Promise<Row | undefined>, toRecord: (row: Row, sealer: Sealer) => R) {
  return async (db: Kysely<Database>, sealer: Sealer, value: string): Promise<R | undefined> => {
    const row = await lookup(db, sealer.index(value))
    return row && toRecord(row, sealer)
  }
}
const findAppByCurrentKey = byKeyedHash(appByKeyHash, toApp)

export async function findUserById(db: Kysely<Database>, id: string): Promise<UserRecord | undefined> {
  const row = await userById(db, id)
  return row && toUser(row)
}

export async function findAppById(db: Kysely<Database>, sealer: Sealer, id: string): Promise<AppRecord | undefined> {
  const row = await appById(db, id)
  return row && toApp(row, sealer)
}

/** By the current consumer key, or else (a second lookup, only for a key no app has now) by a rotated-out one. */
export async function findAppByConsumerKey(db: Kysely<Database>, sealer: Sealer, consumerKey: string): Promise<AppByConsumerKey | undefined> {
  return (await findAppByCurrentKey(db, sealer, consumerKey)) ?? findAppByPreviousKey(db, sealer, consumerKey)
}

/** The app with its rotated-out pair of this key, expired or not (AppByConsumerKey). */
async function findAppByPreviousKey(db: Kysely<Database>, sealer: Sealer, consumerKey: string): Promise<AppByConsumerKey | undefined> {
  const row = await appByPreviousKeyHash(db, sealer.index(consumerKey))
  if (!row) return undefined
  const app: AppByConsumerKey = toApp({ ...row, consumer_key: row.previous__consumer_key, consumer_secret: row.previous__consumer_secret }, sealer)
  app.previousKeyExpiresAtMs = Number(row.previous__expires_at_ms)
  return app
}

export const findAccessToken = byKeyedHash(accessTokenByHash, toAccessToken)

/** See consumerWithAccessTokenByHashes; each part undefined when not found (the owner also when there is no token). */
export async function findConsumerWithAccessToken(
  db: Kysely<Database>,
  sealer: Sealer,
  consumerKey: string,
  token: string,
): Promise<{ app: AppByConsumerKey | undefined; token: AccessTokenRecord | undefined; owner: UserRecord | undefined }> {
  const row = await consumerWithAccessTokenByHashes(db, sealer.index(consumerKey), sealer.index(token))
  // Always one row; the check keeps a broken statement from passing for "nothing known".
  if (!row) throw new Error('findConsumerWithAccessToken: the statement answered no row')
  const app = appOf(row)
  const found = tokenOf(row)
  const owner = ownerOf(row)
  return {
    app: app ? toApp(app, sealer) : await findAppByPreviousKey(db, sealer, consumerKey),
    token: found && toAccessToken(found, sealer),
    owner: owner && toUser(owner),
  }
}

export const findBearerToken = byKeyedHash(bearerTokenByHash, toBearerToken)

/** The bearer token and its app in one query; the app is undefined when it is gone. */
export async function findBearerTokenWithApp(
  db: Kysely<Database>,
  sealer: Sealer,
  token: string,
): Promise<{ token: BearerTokenRecord; app: AppRecord | undefined } | undefined> {
  const row = await bearerTokenWithAppByHash(db, sealer.index(token))
  if (!row) return undefined
  const app = appOf(row)
  return { token: toBearerToken(row, sealer), app: app && toApp(app, sealer) }
}

/** The app's live bearer token: POST /oauth2/token looks it up on every call. */
export async function findLiveBearerToken(db: Kysely<Database>, sealer: Sealer, appId: string): Promise<BearerTokenRecord | undefined> {
  const row = await liveBearerTokenOfApp(db, appId)
  return row && toBearerToken(row, sealer)
}

/** The joined lookups (CredentialLookup) over a database. */
export function createCredentialLookup(db: Kysely<Database>, sealer: Sealer): CredentialLookup {
  return {
    findConsumerWithAccessToken: (consumerKey, token) => findConsumerWithAccessToken(db, sealer, consumerKey, token),
    findBearerTokenWithApp: (token) => findBearerTokenWithApp(db, sealer, token),
  }
}
