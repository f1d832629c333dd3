import type { EndpointUsage } from '../../domain/console/app-usage.ts'
import { APP_DEFAULTS } from '../../domain/registry/apps.ts'
import type { AppRecord, OAuth2ClientRecord, UserRecord } from '../../storage/records.ts'
import { alert, framedPage, minute, urlText } from './frame.ts'
import { html, type SafeHtml } from './html.ts'

interface Signed {
  csrfToken: string
  user: UserRecord
}

const ACCESS_LABELS: Record<string, string> = {
  read: 'Read',
  'read-write': 'Read and write',
  'read-write-directmessages': 'Read, write and direct messages',
}

/** The grace periods offered when regenerating keys, in seconds ('' for none). */
export const GRACE_CHOICES: ReadonlyArray<readonly [string, string]> = [
  ['', 'No grace period: stop it now'],
  ['3600', '1 hour'],
  ['86400', '24 hours'],
  ['604800', '7 days'],
]

export const csrf = (token: string) => html`<input type="hidden" name="csrf_token" value="${token}">`

/** One page of a person's apps; `nextAfter` links the next page, a later page links the first. */
export function appListPage(view: Signed & { apps: AppRecord[]; isFirstPage: boolean; nextAfter?: string | undefined }): string {
  const rows = view.apps.map(
    (app) => html`<tr><td><a href="/console/apps/${app.id}">${app.name}</a></td><td>${app.type}</td><td>${ACCESS_LABELS[app.accessLevel]}</td><td>${app.isSuspended ? 'Suspended' : 'Active'}</td></tr>`,
  )
  return framedPage(
    { title: 'Your apps', ...view },
    html`<h1>Your apps</h1>
${view.apps.length === 0
  ? html`<p>You have no apps yet.</p>`
  : html`<table><caption class="muted">Apps you own</caption><thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Access</th><th scope="col">Status</th></tr></thead><tbody>${rows}</tbody></table>`}
${view.nextAfter !== undefined && html`<p><a href="/console?after=${view.nextAfter}">More apps</a></p>`}
${!view.isFirstPage && html`<p><a href="/console">First page</a></p>`}
<p><a href="/console/apps/new">Create an app</a></p>`,
  )
}

/** What the app form shows: the app's settings, or what was typed when the form came back with an error. */
export interface AppFormValues {
  name: string
  description: string
  website: string
  callbackUrls: string
  type: string
  accessLevel: string
  signIn: boolean
}

export const appFormValues = (app: AppRecord): AppFormValues => ({
  name: app.name,
  description: app.description,
  website: app.website,
  callbackUrls: app.callbackUrls.join('\n'),
  type: app.type,
  accessLevel: app.accessLevel,
  signIn: app.isSignInEnabled,
})

/** A new app's form: the defaults every door registers with. */
export const EMPTY_APP_FORM: AppFormValues = {
  name: '',
  description: '',
  website: '',
  callbackUrls: APP_DEFAULTS.callbackUrls.join('\n'),
  type: APP_DEFAULTS.type,
  accessLevel: APP_DEFAULTS.accessLevel,
  signIn: APP_DEFAULTS.isSignInEnabled,
}

function option(value: string, label: string, selected: string): SafeHtml {
  return html`<option value="${value}"${value === selected && html` selected`}>${label}</option>`
}

function appFields(values: AppFormValues): SafeHtml {
  return html`<label for="name">Name</label>
<input id="name" name="name" type="text" value="${values.name}" maxlength="64" required>
<label for="description">Description</label>
<textarea id="description" name="description" maxlength="500">${values.description}</textarea>
<label for="website">Website</label>
<input id="website" name="website" type="url" value="${values.website}" placeholder="https://example.com">
<label for="callbacks">Callback URLs</label>
<textarea id="callbacks" name="callbacks" aria-describedby="callbacks_hint">${values.callbackUrls}</textarea>
<p id="callbacks_hint" class="muted">One per line, at most 10. Leave empty for the PIN (oob) flow only.</p>
<label for="type">Type</label>
<select id="type" name="type">${option('web', 'Web', values.type)}${option('desktop', 'Desktop', values.type)}</select>
<label for="access_level">Access level</label>
<select id="access_level" name="access_level">${Object.entries(ACCESS_LABELS).map(([value, label]) => option(value, label, values.accessLevel))}</select>
<label class="check" for="sign_in"><input id="sign_in" name="sign_in" type="checkbox" value="on"${values.signIn && html` checked`}>Allow Sign in with Latchkey</label>`
}

export function newAppPage(view: Signed & { values: AppFormValues; message?: string | undefined }): string {
  return framedPage(
    { title: 'Create an app', ...view },
    html`<h1>Create an app</h1>
<form method="post" action="/console/apps">
${csrf(view.csrfToken)}
${alert(view.message)}
${appFields(view.values)}
<div class="actions"><button type="submit" id="create_app" class="primary">Create app</button></div>
</form>`,
  )
}

/** A credential shown this once: the page that shows it is never cached (no-store). */
export interface Revealed {
  heading: string
  note: string
  values: Array<{ id: string; label: string; value: string }>
}

export function revealed(view: Revealed): SafeHtml {
  return html`<section aria-labelledby="revealed" class="revealed" role="status">
<h2 id="revealed">${view.heading}</h2>
${view.values.map((v) => html`<p><strong>${v.label}</strong><code class="secret" id="${v.id}">${v.value}</code><button type="button" class="copy" data-copy="${v.id}">Copy</button></p>`)}
<p>${view.note}</p>
</section>`
}

export interface AppPageView extends Signed {
  app: AppRecord
  /** Its OAuth 2.0 client, when OAuth 2.0 is on. */
  oauth2Client?: OAuth2ClientRecord | undefined
  usage: EndpointUsage[]
  revealed?: Revealed | undefined
  message?: string | undefined
  /** The edit form, as typed when it came back with an error. */
  values?: AppFormValues
}

/** Whether the owner may lift the suspension: not an operator's. */
const isOperatorSuspension = (app: AppRecord) => app.isSuspended && app.suspendedBy !== 'owner'

function statusText(app: AppRecord): string {
  if (!app.isSuspended) return 'Active'
  return isOperatorSuspension(app)
    ? 'Suspended by the operator: every call with its credentials is refused. Only the operator can lift it.'
    : 'Suspended: every call with its credentials is refused'
}

function suspensionAction(app: AppRecord, csrfToken: string): SafeHtml {
  if (!app.isSuspended) return actionForm(app, csrfToken, 'suspend', 'Suspend app', 'suspend_app', 'danger')
  return isOperatorSuspension(app) ? html`<p>Suspended by the operator.</p>` : actionForm(app, csrfToken, 'unsuspend', 'Unsuspend app', 'unsuspend_app')
}

function details(app: AppRecord): SafeHtml {
  return html`<table><tbody>
<tr><th scope="row">App id</th><td><code>${app.id}</code></td></tr>
<tr><th scope="row">Status</th><td>${statusText(app)}</td></tr>
<tr><th scope="row">Website</th><td>${app.website ? urlText(app.website) : 'None'}</td></tr>
<tr><th scope="row">Callback URLs</th><td>${app.callbackUrls.length === 0 ? 'None (PIN flow only)' : app.callbackUrls.map((url) => html`<code>${url}</code><br>`)}</td></tr>
<tr><th scope="row">Created</th><td>${minute(app.createdAtMs)}</td></tr>
</tbody></table>`
}

/** An endpoint's path that may break before a slash, never inside a name (a hyphen is a break for the browser). */
const endpointName = (resource: string): SafeHtml =>
  html`<code class="endpoint">${resource.split(/(?=\/)/).map((part, i) => html`${i > 0 && html`<wbr>`}<span class="nowrap">${part}</span>`)}</code>`

/** "2026-12-06 07:50 UTC" that may break after the date, never inside it (a hyphen is a break for the browser). */
const unbrokenDate = (text: string): SafeHtml => {
  const [date, ...time] = text.split(' ')
  return html`<span class="nowrap">${date}</span> ${time.join(' ')}`
}

function usageTable(usage: EndpointUsage[]): SafeHtml {
  return html`<section class="part" aria-labelledby="usage"><h2 id="usage">Usage</h2>
<p class="muted">The app's own rate-limit budget per window, as GET /1.1/application/rate_limit_status.json reports it for an app-only call.</p>
<table><caption class="muted">Calls this window, per endpoint</caption><thead><tr><th scope="col">Endpoint</th><th scope="col">Used</th><th scope="col">Limit</th><th scope="col">Window resets</th></tr></thead>
<tbody>${usage.map((u) => html`<tr><td>${endpointName(u.resource)}</td><td>${u.used}</td><td>${u.limit}</td><td>${unbrokenDate(minute(u.reset * 1000))}</td></tr>`)}</tbody></table></section>`
}

function actionForm(app: AppRecord, token: string, path: string, label: string, id: string, style = 'secondary'): SafeHtml {
  return html`<form method="post" action="/console/apps/${app.id}/${path}">${csrf(token)}<button type="submit" id="${id}" class="${style}">${label}</button></form>`
}

const OAUTH2_CHOICES: ReadonlyArray<readonly [string, string]> = [
  ['off', 'Off'],
  ['confidential', 'Confidential client: a web app, automated app or bot (gets a client secret)'],
  ['public', 'Public client: a native or single-page app (no secret)'],
]

/** X's "User authentication settings": OAuth 2.0 user context on or off, and the client's type. */
function userAuthenticationSettings(app: AppRecord, client: OAuth2ClientRecord | undefined, csrfToken: string): SafeHtml {
  return html`<section class="part" aria-labelledby="user_authentication"><h2 id="user_authentication">User authentication settings</h2>
<p>${client ? html`OAuth 2.0 is on. Client id: <code id="client_id">${client.clientId}</code>` : 'OAuth 2.0 is off: only OAuth 1.0a can act for people.'}</p>
<form method="post" action="/console/apps/${app.id}/oauth2">
${csrf(csrfToken)}
<label for="oauth2">OAuth 2.0</label>
<select id="oauth2" name="oauth2" aria-describedby="oauth2_hint">${OAUTH2_CHOICES.map(([value, label]) => option(value, label, client?.type ?? 'off'))}</select>
<p id="oauth2_hint" class="muted">Redirect URIs are the callback URLs above. Turning OAuth 2.0 off or changing the type ends every grant people gave the app.</p>
<div class="actions"><button type="submit" id="save_oauth2" class="secondary">Save user authentication settings</button></div>
</form>
${client?.type === 'confidential' && html`<form method="post" action="/console/apps/${app.id}/oauth2/secret">
${csrf(csrfToken)}
${graceChoice('client_secret_grace', 'Keep the old client secret working for', 'Without a grace period every grant people gave the app ends at once; with one, the old secret and the grants keep working while your clients move to the new secret.')}
<div class="actions"><button type="submit" id="regenerate_client_secret" class="secondary">Regenerate client secret</button></div>
</form>`}
</section>`
}

/** The grace period a regenerated secret's predecessor keeps working for: a select named `name`. */
function graceChoice(name: string, label: string, hint: string): SafeHtml {
  return html`<label for="${name}">${label}</label>
<select id="${name}" name="${name}" aria-describedby="${name}_hint">${GRACE_CHOICES.map(([value, text]) => option(value, text, ''))}</select>
<p id="${name}_hint" class="muted">${hint}</p>`
}

/** The parts of an app's page, in order, as the contents at its top links them: [heading id, heading]. */
export const APP_PAGE_PARTS: ReadonlyArray<readonly [string, string]> = [
  ['keys_and_tokens', 'Keys and tokens'],
  ['settings', 'Settings'],
  ['user_authentication', 'User authentication settings'],
  ['usage', 'Usage'],
  ['failures', 'Signature failures'],
  ['danger', 'Suspend or delete'],
]

const contents = (): SafeHtml =>
  html`<nav aria-label="On this page"><ul>${APP_PAGE_PARTS.map(([id, heading]) => html`<li><a href="#${id}">${heading}</a></li>`)}</ul></nav>`

/** X's "Keys and tokens": the consumer keys, the bearer token and the owner's access token, each under its own heading. */
function keysAndTokens(view: AppPageView): SafeHtml {
  const { app, csrfToken, user } = view
  return html`<section class="part" aria-labelledby="keys_and_tokens"><h2 id="keys_and_tokens">Keys and tokens</h2>
<h3>Consumer keys</h3>
<p>Consumer key (API key): <code>${app.consumerKey}</code>. Its secret is shown once, when the pair is made.</p>
<form method="post" action="/console/apps/${app.id}/keys">
${csrf(csrfToken)}
${graceChoice('grace', 'Keep the old key and secret working for', 'Without a grace period every token of the app stops working at once; with one, the old pair and the tokens keep working while your clients move to the new pair.')}
<div class="actions"><button type="submit" id="regenerate_keys" class="secondary">Regenerate consumer key and secret</button></div>
</form>
<h3>Bearer token</h3>
<p class="muted">App-only OAuth 2.0: calls as the app itself, for no person. The same token until you invalidate it.</p>
<div class="actions">
${actionForm(app, csrfToken, 'bearer-token', 'Get the bearer token', 'get_bearer_token')}
${actionForm(app, csrfToken, 'bearer-token/invalidate', 'Invalidate the bearer token', 'invalidate_bearer_token')}
</div>
<h3>Access token and secret</h3>
<p class="muted">OAuth 1.0a user context: calls as @${user.screenName} with this app.</p>
<div class="actions">
${actionForm(app, csrfToken, 'owner-token', 'Generate your access token', 'generate_access_token')}
${actionForm(app, csrfToken, 'owner-token/invalidate', 'Invalidate your access token', 'invalidate_access_token')}
</div>
<p><a href="/console/apps/${app.id}/oauth-tool" id="oauth_tool">OAuth tool: sign a request</a> with these keys, as a curl command.</p>
</section>`
}

function failuresPart(app: AppRecord): SafeHtml {
  return html`<section class="part" aria-labelledby="failures"><h2 id="failures">Signature failures</h2>
<p>Calls of this app refused in the last 24 hours, with the base string Latchkey computed: <a href="/console/apps/${app.id}/failures" id="signature_failures">Recent signature failures</a>.</p>
<p>Tell your resource servers at once when a credential of this app ends: <a href="/console/apps/${app.id}/webhooks" id="revocation_webhooks">Revocation webhooks</a>.</p></section>`
}

export function appPage(view: AppPageView): string {
  const { app, csrfToken } = view
  return framedPage(
    { title: app.name, ...view },
    html`<h1>${app.name}</h1>
${alert(view.message)}
${view.revealed && revealed(view.revealed)}
${details(app)}
${contents()}
<div class="parts">
${keysAndTokens(view)}
<section class="part" aria-labelledby="settings"><h2 id="settings">Settings</h2>
<form method="post" action="/console/apps/${app.id}">
${csrf(csrfToken)}
${appFields(view.values ?? appFormValues(app))}
<div class="actions"><button type="submit" id="save_app" class="primary">Save changes</button></div>
</form></section>
${userAuthenticationSettings(app, view.oauth2Client, csrfToken)}
${usageTable(view.usage)}
${failuresPart(app)}
<section class="part" aria-labelledby="danger"><h2 id="danger">Suspend or delete</h2>
<div class="actions">
${suspensionAction(app, csrfToken)}
<a href="/console/apps/${app.id}/delete">Delete this app…</a>
</div></section>
</div>`,
    { width: 'widest' },
  )
}

export function deleteAppPage(view: Signed & { app: AppRecord }): string {
  const { app } = view
  return framedPage(
    { title: `Delete ${app.name}`, ...view },
    html`<h1>Delete ${app.name}?</h1>
<p>Every credential of this app stops working at once: its consumer key, every access token people gave it and its bearer token. This cannot be undone.</p>
<form method="post" action="/console/apps/${app.id}/delete">
${csrf(view.csrfToken)}
<div class="actions">
<button type="submit" id="confirm_delete" class="danger">Delete ${app.name}</button>
<a href="/console/apps/${app.id}">Keep the app</a>
</div>
</form>`,
  )
}
