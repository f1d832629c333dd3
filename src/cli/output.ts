import type { AppRecord, UserRecord } from '../storage/index.ts'

/** What the CLI prints: exactly one JSON document with --json, readable lines without. */
export function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`)
}

export function userView(user: UserRecord) {
  return { user_id: user.id, screen_name: user.screenName, name: user.name, created_at: new Date(user.createdAtMs).toISOString() }
}

/** An app as the CLI shows it; the consumer secret only when asked for (show, create, rotate-keys). */
export function appView(app: AppRecord, options: { withSecret: boolean }) {
  return {
    app_id: app.id,
    name: app.name,
    description: app.description,
    website: app.website,
    owner_id: app.ownerId,
    consumer_key: app.consumerKey,
    ...(options.withSecret ? { consumer_secret: app.consumerSecret } : {}),
    callback_urls: app.callbackUrls,
    access_level: app.accessLevel,
    type: app.type,
    sign_in_enabled: app.isSignInEnabled,
    signature_methods: app.signatureMethods,
    suspended: app.isSuspended,
    resource_server: app.isResourceServer,
    created_at: new Date(app.createdAtMs).toISOString(),
    updated_at: new Date(app.updatedAtMs).toISOString(),
  }
}

/** `key: value` lines for a flat object. */
export function lines(view: Record<string, unknown>): string {
  return Object.entries(view)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(' ') || '-' : String(value)}`)
    .join('\n')
}
