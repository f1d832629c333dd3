import { html } from './html.ts'
import { layout } from './layout.ts'

/** The `oob` flow's end: the PIN the person types into the app (it is the oauth_verifier). */
export function pinPage(appName: string, pin: string): string {
  return layout(
    'Your PIN',
    html`<h1>You authorized ${appName}</h1>
<p>To finish, go back to ${appName} and type in this PIN:</p>
<p class="pin"><code id="oauth_pin">${pin}</code></p>
<p class="muted">The PIN works once. You can close this page when you are done.</p>`,
  )
}

/** The `oob` flow's end after Cancel. */
export function deniedPage(appName: string): string {
  return layout(
    'Access denied',
    html`<h1>You did not authorize ${appName}</h1>
<p>Access was denied: ${appName} cannot use your account. You can close this page.</p>`,
  )
}

export function errorPage(title: string, message: string): string {
  return layout(
    title,
    html`<h1>${title}</h1>
<p role="alert">${message}</p>`,
  )
}
