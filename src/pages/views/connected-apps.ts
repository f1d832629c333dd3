import type { ConnectedApp } from '../../domain/console/connected-apps.ts'
import { SCOPES, type Scope } from '../../protocol/oauth2/scopes.ts'
import type { UserRecord } from '../../storage/records.ts'
import { framedPage, minute } from './frame.ts'
import { html } from './html.ts'

const ACCESS: Record<string, string> = {
  read: 'Read',
  'read-write': 'Read and write',
  'read-write-directmessages': 'Read, write and direct messages',
}

export interface ConnectedAppsView {
  csrfToken: string
  user: UserRecord
  apps: ConnectedApp[]
  message?: string | undefined
}

function appEntry(app: ConnectedApp, csrfToken: string) {
  const owner = app.owner ? html`${app.owner.name} (@${app.owner.screenName})` : html`an unknown developer`
  return html`<li data-app-id="${app.appId}">
<h2>${app.appName}</h2>
<p class="muted">By ${owner}</p>
<p>Access: ${ACCESS[app.accessLevel]}. Authorized ${minute(app.authorizedAtMs)}.</p>
${app.scopes && html`<p>Through OAuth 2.0 it can:</p><ul>${app.scopes.map((scope) => html`<li>${SCOPES[scope as Scope]?.allows ?? scope}</li>`)}</ul>`}
<form method="post" action="/settings/connected_apps/revoke">
<input type="hidden" name="csrf_token" value="${csrfToken}">
<button type="submit" name="revoke" value="${app.appId}" class="danger" aria-label="Revoke access for ${app.appName}">Revoke access</button>
</form>
</li>`
}

export function connectedAppsPage(view: ConnectedAppsView): string {
  return framedPage(
    { title: 'Connected apps', csrfToken: view.csrfToken, user: view.user },
    html`<h1>Connected apps</h1>
${view.message && html`<p role="status">${view.message}</p>`}
${view.apps.length === 0
  ? html`<p>You have not authorized any app.</p>`
  : html`<p>These apps can use your account. Revoking access stops an app at once; it can ask you again later.</p>
<ul class="plain">${view.apps.map((app) => appEntry(app, view.csrfToken))}</ul>`}`,
  )
}

