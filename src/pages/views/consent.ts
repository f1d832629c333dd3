import type { Consent } from '../../domain/oauth1/authorization.ts'
import { startPath, type ExternalSignInMethod, type SignInOptions } from '../sign-in-methods.ts'
import type { UserRecord } from '../../storage/records.ts'
import { ACCESS_DESCRIPTIONS } from './access-levels.ts'
import { isWebUrl } from './frame.ts'
import { html, type SafeHtml } from './html.ts'
import { layout } from './layout.ts'

export interface ConsentView {
  /** Where the form posts: the page's own path. */
  action: string
  consent: Consent
  csrfToken: string
  /** The person signed in; undefined shows the sign-in fields. */
  signedIn: UserRecord | undefined
  usernamePrefill: string
  forceLogin: boolean
  /** A plain sentence shown above the form (a failed sign-in). */
  message?: string | undefined
  signInOptions: SignInOptions
}

/** "Sign in with …" links, each leading back to `returnTo` once signed in. */
export function externalSignInLinks(methods: readonly ExternalSignInMethod[], returnTo: string): SafeHtml {
  return html`${methods.length > 0 && html`<ul class="sign-in-with">${methods.map((method) => html`<li><a class="button" id="sign_in_with_${method.id}" href="${startPath(method, returnTo)}">Sign in with ${method.label}</a></li>`)}</ul>`}`
}


/** Who is asking: the app, its developer, its description and website. */
export function aboutApp({ app, owner }: Pick<Consent, 'app' | 'owner'>): SafeHtml {
  const by = owner ? html`${owner.name} (@${owner.screenName})` : html`an unknown developer`
  return html`<section aria-labelledby="about-app">
<h2 id="about-app">About this app</h2>
<p><strong>${app.name}</strong> <span class="muted">by ${by}</span></p>
${app.description && html`<p>${app.description}</p>`}
${app.website && (isWebUrl(app.website) ? html`<p>Website: <a href="${app.website}" rel="noopener noreferrer nofollow">${app.website}</a></p>` : html`<p>Website: ${app.website}</p>`)}
</section>`
}

function permissions(consent: Consent): SafeHtml {
  const { can, cannot } = ACCESS_DESCRIPTIONS[consent.requestToken.accessLevel]
  return html`<h2>This app will be able to:</h2>
<ul>${can.map((line) => html`<li>${line}</li>`)}</ul>
<h2>It will not be able to:</h2>
<ul>${cannot.map((line) => html`<li>${line}</li>`)}</ul>`
}

function signInFields(prefill: string, options: SignInOptions, returnTo: string): SafeHtml {
  return html`<h2>Sign in to authorize</h2>
${externalSignInLinks(options.methods, returnTo)}
${options.password && html`<label for="username">Username</label>
<input id="username" name="username" type="text" value="${prefill}" autocomplete="username" autocapitalize="none" spellcheck="false" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>`}`
}

/**
 * The part of a consent form both protocols' pages share: the message, who is signed in (or the
 * sign-in fields), Authorize and Cancel, and "Sign in with another account".
 */
export function consentControls(view: { signedIn: UserRecord | undefined; usernamePrefill: string; message?: string | undefined; signInOptions: SignInOptions }, returnTo: string): SafeHtml {
  const user = view.signedIn
  return html`${view.message && html`<p class="alert" role="alert">${view.message}</p>`}
${user ? html`<p>You are signed in as <strong>${user.name}</strong> (@${user.screenName}).</p>` : signInFields(view.usernamePrefill, view.signInOptions, returnTo)}
<div class="actions">
${(user || view.signInOptions.password) && html`<button type="submit" name="action" value="allow" id="allow">Authorize app</button>`}
<button type="submit" name="action" value="cancel" id="cancel" formnovalidate>Cancel</button>
</div>
${user && html`<p>Not you? <button type="submit" name="action" value="switch" class="link" formnovalidate>Sign in with another account</button></p>`}`
}

/**
 * Where a sign-in elsewhere comes back to: this page, with what it asks of the sign-in (`force_login`:
 * the provider authenticates afresh; `screen_name`: its login hint), read by the start route.
 */
function consentReturnTo(view: ConsentView): string {
  const query = new URLSearchParams({ oauth_token: view.consent.requestToken.token })
  if (view.usernamePrefill) query.set('screen_name', view.usernamePrefill)
  if (view.forceLogin) query.set('force_login', 'true')
  return `${view.action}?${query}`
}

export function consentPage(view: ConsentView): string {
  const { app, requestToken } = view.consent
  return layout(
    `Authorize ${app.name}`,
    html`<h1>Authorize ${app.name} to use your account?</h1>
${aboutApp(view.consent)}
${permissions(view.consent)}
<form method="post" action="${view.action}">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<input type="hidden" name="oauth_token" value="${requestToken.token}">
${view.forceLogin && html`<input type="hidden" name="force_login" value="true">`}
${consentControls(view, consentReturnTo(view))}
</form>
<p class="muted"><a href="/settings/connected_apps">Manage the apps you've connected</a></p>`,
  )
}
