import type { BrowserSessionRecord, UserRecord } from '../../storage/records.ts'
import { alert, framedPage, minute } from './frame.ts'
import { browserName } from './browser-name.ts'
import { html } from './html.ts'
import { startPath, type ExternalSignInMethod } from '../sign-in-methods.ts'

export interface ConfirmPasswordView {
  csrfToken: string
  user: UserRecord
  /** Where the form posts: the action being confirmed, or /console/sudo for a page to be shown. */
  action: string
  /** The fields of the form being confirmed, sent again with the password. */
  hidden: ReadonlyMap<string, string>
  message?: string | undefined
}

/** "Confirm your password": asked before a sensitive action when it was not entered in the last 10 minutes. */
export function confirmPasswordPage(view: ConfirmPasswordView): string {
  return framedPage(
    { title: 'Confirm your password', csrfToken: view.csrfToken, user: view.user },
    html`<h1>Confirm your password</h1>
<p>This shows or changes a secret. You have not entered your password in the last 10 minutes, so please enter it again.</p>
<form method="post" action="${view.action}">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
${[...view.hidden].map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${alert(view.message)}
<label for="sudo_password">Password for @${view.user.screenName}</label>
<input id="sudo_password" name="sudo_password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" id="confirm_password" class="primary">Confirm</button></div>
</form>`,
  )
}

/**
 * "Confirm it's you" for a person without a password (docs/accounts.md): they sign in again at their
 * provider, which is asked to authenticate afresh, and come back to `returnTo` with a fresh session.
 */
export function confirmWithProviderPage(view: { csrfToken: string; user: UserRecord; methods: readonly ExternalSignInMethod[]; returnTo: string }): string {
  return framedPage(
    { title: "Confirm it's you", csrfToken: view.csrfToken, user: view.user },
    html`<h1>Confirm it's you</h1>
<p>This shows or changes a secret. You have not signed in within the last 10 minutes, so please sign in again, then repeat what you were doing.</p>
${
  view.methods.length > 0
    ? html`<ul class="sign-in-with">${view.methods.map((method) => html`<li><a class="button" id="confirm_with_${method.id}" href="${startPath(method, view.returnTo)}&amp;force_login=true">Sign in again with ${method.label}</a></li>`)}</ul>`
    : html`<p>Sign out, then sign in again the way you usually do.</p>`
}`,
  )
}

export interface SessionsView {
  csrfToken: string
  user: UserRecord
  sessions: BrowserSessionRecord[]
  currentId: string
  message?: string | undefined
  /** The ways the person's account is linked to (docs/accounts.md): "Signed in through <label>". */
  signedInThrough?: readonly string[]
}

/** The browser's name, its whole user agent on hover. */
function browserCell(userAgent: string) {
  const name = browserName(userAgent)
  if (name === undefined) return html`<span class="muted" title="${userAgent}">Unknown browser</span>`
  return html`<span title="${userAgent}">${name}</span>`
}

function sessionEntry(session: BrowserSessionRecord, view: SessionsView) {
  const isCurrent = session.id === view.currentId
  return html`<tr data-session-id="${session.id}">
<td>${browserCell(session.userAgent)}${isCurrent && html` <strong>(this browser)</strong>`}</td>
<td>${session.address}</td>
<td>${minute(session.createdAtMs)}</td>
<td>${minute(session.lastSeenAtMs)}</td>
<td><form method="post" action="/settings/sessions/end">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<button type="submit" name="session" value="${session.id}" class="danger" aria-label="Sign out the session of ${minute(session.createdAtMs)}${isCurrent ? ' (this browser)' : ''}">Sign out</button>
</form></td>
</tr>`
}

/** The person's live sessions, each with "Sign out", and "Sign out of all other sessions" when there is another. */
export function sessionsPage(view: SessionsView): string {
  return framedPage(
    { title: 'Your sessions', csrfToken: view.csrfToken, user: view.user },
    html`<h1>Your sessions</h1>
${view.message && html`<p role="status">${view.message}</p>`}
<p>Where you are signed in. A session you do not recognise can be signed out here; changing your password signs out every one.</p>
${(view.signedInThrough ?? []).length > 0 && html`<ul id="signed_in_through">${(view.signedInThrough ?? []).map((label) => html`<li>Signed in through ${label}</li>`)}</ul>`}
<table>
<thead><tr><th scope="col">Browser</th><th scope="col">Address</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${view.sessions.map((session) => sessionEntry(session, view))}</tbody>
</table>
${view.sessions.some((session) => session.id !== view.currentId) && html`<form method="post" action="/settings/sessions/end-others">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<div class="actions"><button type="submit" id="end_other_sessions" class="danger">Sign out of all other sessions</button></div>
</form>`}`,
  )
}

export interface PasswordView {
  csrfToken: string
  user: UserRecord
  message?: string | undefined
  /** Shown as a status rather than an alert (the password was changed). */
  isDone?: boolean
}

export function passwordPage(view: PasswordView): string {
  return framedPage(
    { title: 'Change your password', csrfToken: view.csrfToken, user: view.user },
    html`<h1>Change your password</h1>
${view.isDone ? html`<p role="status">${view.message}</p>` : alert(view.message)}
<p>Changing your password signs you out everywhere else: every other browser will have to sign in again.</p>
<form method="post" action="/settings/password">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<input type="hidden" name="username" value="${view.user.screenName}" autocomplete="username">
<label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="8" aria-describedby="new_password_hint" required>
<p id="new_password_hint" class="muted">At least 8 characters.</p>
<div class="actions"><button type="submit" id="change_password" class="primary">Change password</button></div>
</form>`,
  )
}
