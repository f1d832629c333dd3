import type { AppRecord, OAuth2ClientRecord, UserRecord } from '../storage/records.ts'

/**
 * The one vocabulary of apps and people wherever they are data: the CLI's `--json`, the admin API,
 * the console's form fields and the audit trail's details all name a field the same way. The
 * domain's names (camelCase) as those surfaces write them; a name not here is the same on both sides.
 */
const WIRE_NAMES = {
  screenName: 'screen_name',
  ownerId: 'owner',
  callbackUrls: 'callbacks',
  accessLevel: 'access_level',
  signatureMethods: 'signature_methods',
  isSignInEnabled: 'sign_in',
  isResourceServer: 'resource_server',
  isSuspended: 'suspended',
  graceSeconds: 'grace_seconds',
} as const satisfies Readonly<Record<string, string>>

type WireNames = typeof WIRE_NAMES
/** A domain field's name in the vocabulary, as a type. */
type WireName<F extends string> = F extends keyof WireNames ? WireNames[F] : F
/** The domain's object T as the surfaces write it: each field under its name in the vocabulary. */
export type OnTheWire<T> = { [K in keyof T & string as WireName<K>]: T[K] }

/** A domain field's name in the vocabulary. */
export const wireName = (field: string): string => (WIRE_NAMES as Readonly<Record<string, string>>)[field] ?? field

/** The given fields of T read out of an object in the vocabulary (a request body); a field it lacks stays out. */
export function fromWire<T extends object>(wire: Partial<OnTheWire<T>>, fields: ReadonlyArray<keyof T & string>): Partial<T> {
  const values = wire as Readonly<Record<string, unknown>>
  const found: Record<string, unknown> = {}
  for (const field of fields) if (values[wireName(field)] !== undefined) found[field] = values[wireName(field)]
  return found as Partial<T>
}

const iso = (ms: number) => new Date(ms).toISOString()

/** A person as every surface shows them (never their password). */
export function userJson(user: UserRecord) {
  return { user_id: user.id, screen_name: user.screenName, name: user.name, created_at: iso(user.createdAtMs), disabled: user.isDisabled === true, ...(user.email ? { email: user.email } : {}) }
}

/** An app's OAuth 2.0 client; its secret only in the answer that made it. */
export function oauth2ClientJson(client: OAuth2ClientRecord | undefined, newSecret?: string) {
  return {
    oauth2_enabled: client !== undefined,
    client_type: client?.type ?? null,
    client_id: client?.clientId ?? null,
    ...(newSecret ? { client_secret: newSecret } : {}),
  }
}

/**
 * An app as every surface shows it, with its OAuth 2.0 client; the consumer secret only where it is
 * asked for (an app just made, `app show`, rotated keys), the client secret only where it is made.
 */
export function appJson(app: AppRecord, options: { withSecret: boolean; client: OAuth2ClientRecord | undefined; newSecret?: string | undefined }) {
  return {
    app_id: app.id,
    name: app.name,
    owner: app.ownerId,
    consumer_key: app.consumerKey,
    ...(options.withSecret ? { consumer_secret: app.consumerSecret } : {}),
    callbacks: app.callbackUrls,
    type: app.type,
    sign_in: app.isSignInEnabled,
    access_level: app.accessLevel,
    description: app.description,
    website: app.website,
    resource_server: app.isResourceServer,
    signature_methods: app.signatureMethods,
    suspended: app.isSuspended,
    created_at: iso(app.createdAtMs),
    updated_at: iso(app.updatedAtMs),
    ...oauth2ClientJson(options.client, options.newSecret),
  }
}
