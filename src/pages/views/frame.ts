import type { UserRecord } from '../../storage/records.ts'
import type { SignInOptions } from '../sign-in-methods.ts'
import { externalSignInLinks } from './consent.ts'
import { html, type SafeHtml } from './html.ts'
import { layout } from './layout.ts'

export interface FrameView {
  title: string
  csrfToken: string
  user: UserRecord | undefined
}

/** Only http(s) URLs become links; anything else (javascript:, data:, myapp:) is shown as text. */
export function isWebUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

export function urlText(value: string): SafeHtml {
  return isWebUrl(value) ? html`<a href="${value}" rel="noopener noreferrer nofollow">${value}</a>` : html`<code>${value}</code>`
}

/** Date and time to the minute, in UTC, as people read it. */
export function minute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

function nav(view: FrameView): SafeHtml {
  if (!view.user) return html``
  return html`<nav aria-label="Account"><ul>
<li><a href="/console">Your apps</a></li>
<li><a href="/settings/connected_apps">Connected apps</a></li>
<li><a href="/settings/sessions">Sessions</a></li>
<li><a href="/settings/password">Password</a></li>
<li><form method="post" action="/console/sign-out"><input type="hidden" name="csrf_token" value="${view.csrfToken}"><button type="submit" class="link">Sign out @${view.user.screenName}</button></form></li>
</ul></nav>`
}

/** A console or settings page: the account links above the page's own content. */
export function framedPage(view: FrameView, body: SafeHtml, options: { width?: 'wide' | 'widest' } = {}): string {
  return layout(view.title, html`${nav(view)}${body}`, { width: options.width ?? 'wide', script: true })
}

export function alert(message: string | undefined): SafeHtml {
  return html`${message && html`<p class="alert" role="alert">${message}</p>`}`
}

export interface SignInView {
  csrfToken: string
  /** Where the person goes once signed in. */
  next: string
  heading: string
  usernamePrefill: string
  message?: string | undefined
  allowSignup: boolean
  signInOptions: SignInOptions
}

export function signInPage(view: SignInView): string {
  return framedPage(
    { title: view.heading, csrfToken: view.csrfToken, user: undefined },
    html`<h1>${view.heading}</h1>
<form method="post" action="/console/sign-in">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<input type="hidden" name="next" value="${view.next}">
${alert(view.message)}
${externalSignInLinks(view.signInOptions.methods, view.next)}
${view.signInOptions.password && html`<label for="username">Username</label>
<input id="username" name="username" type="text" value="${view.usernamePrefill}" autocomplete="username" autocapitalize="none" spellcheck="false" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" id="sign_in" class="primary">Sign in</button></div>`}
</form>
${view.allowSignup && html`<p>New here? <a href="/console/signup">Create an account</a>.</p>`}`,
  )
}

export interface SignUpView {
  csrfToken: string
  screenName: string
  name: string
  message?: string | undefined
}

export function signUpPage(view: SignUpView): string {
  return framedPage(
    { title: 'Create an account', csrfToken: view.csrfToken, user: undefined },
    html`<h1>Create an account</h1>
<form method="post" action="/console/signup">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
${alert(view.message)}
<label for="screen_name">Screen name</label>
<input id="screen_name" name="screen_name" type="text" value="${view.screenName}" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="15" aria-describedby="screen_name_hint" required>
<p id="screen_name_hint" class="muted">1 to 15 letters, digits or underscores.</p>
<label for="name">Name</label>
<input id="name" name="name" type="text" value="${view.name}" autocomplete="name" maxlength="50" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" aria-describedby="password_hint" required>
<p id="password_hint" class="muted">At least 8 characters.</p>
<div class="actions"><button type="submit" id="sign_up" class="primary">Create account</button></div>
</form>
<p>Already have an account? <a href="/console">Sign in</a>.</p>`,
  )
}
