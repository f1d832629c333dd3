import type { AuthorizationRequest } from '../../domain/oauth2-user/authorization-request.ts'
import { SCOPES } from '../../protocol/oauth2/scopes.ts'
import type { UserRecord } from '../../storage/records.ts'
import type { SignInOptions } from '../sign-in-methods.ts'
import { aboutApp, consentControls } from './consent.ts'
import { html } from './html.ts'
import { layout } from './layout.ts'

export interface OAuth2ConsentView {
  request: AuthorizationRequest
  csrfToken: string
  /** The person signed in; undefined shows the sign-in fields. */
  signedIn: UserRecord | undefined
  usernamePrefill: string
  message?: string | undefined
  signInOptions: SignInOptions
}

/** The consent page of OAuth 2.0 user context: what each asked scope allows, in plain words. */
export function oauth2ConsentPage(view: OAuth2ConsentView): string {
  const { request } = view
  return layout(
    `Authorize ${request.app.name}`,
    html`<h1>Authorize ${request.app.name} to use your account?</h1>
${aboutApp(request)}
<h2>This app will be able to:</h2>
<ul>${request.scopes.map((scope) => html`<li>${SCOPES[scope].allows}</li>`)}</ul>
<form method="post" action="/i/oauth2/authorize">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
${Object.entries(request.parameters).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${consentControls(view, `/i/oauth2/authorize?${new URLSearchParams(request.parameters).toString()}`)}
</form>
<p class="muted"><a href="/settings/connected_apps">Manage the apps you've connected</a></p>`,
  )
}
