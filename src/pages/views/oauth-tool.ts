import type { SignedToolRequest, ToolRequest } from '../../domain/console/oauth-tool.ts'
import type { AppRecord, UserRecord } from '../../storage/records.ts'
import { alert, framedPage } from './frame.ts'
import { html } from './html.ts'

export interface OAuthToolView {
  csrfToken: string
  user: UserRecord
  app: AppRecord
  /** What the form shows: the request as last typed, or the defaults. */
  request: ToolRequest
  signed?: SignedToolRequest | undefined
  message?: string | undefined
}

/** X's OAuth tool: sign a request of this app (and the developer's token) and get it as curl. */
export function oauthToolPage(view: OAuthToolView): string {
  const { app, request, signed } = view
  return framedPage(
    { title: `OAuth tool: ${app.name}`, csrfToken: view.csrfToken, user: view.user },
    html`<h1>OAuth tool: ${app.name}</h1>
<p><a href="/console/apps/${app.id}">Back to ${app.name}</a></p>
<p>Sign a request with this app's consumer key (and, if you like, your own access token) as an OAuth 1.0a client would: the signature base string, the Authorization header and a curl command that sends it. Nothing is sent from here. The signature holds for five minutes, once.</p>
${alert(view.message)}
<form method="post" action="/console/apps/${app.id}/oauth-tool">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<label for="method">Method</label>
<select id="method" name="method"><option value="GET"${request.method === 'GET' && html` selected`}>GET</option><option value="POST"${request.method === 'POST' && html` selected`}>POST</option></select>
<label for="url">URL</label>
<input id="url" name="url" type="url" value="${request.url}" required>
<label for="parameters">Parameters</label>
<textarea id="parameters" name="parameters" aria-describedby="parameters_hint">${request.parameters}</textarea>
<p id="parameters_hint" class="muted">One name=value per line, not encoded: the query for GET, the form body for POST. The oauth_ parameters are added for you.</p>
<label class="check" for="with_token"><input id="with_token" name="with_token" type="checkbox" value="on"${request.withToken && html` checked`}>Sign with my access token for this app too (user context)</label>
<div class="actions"><button type="submit" id="sign_request" class="primary">Sign the request</button></div>
</form>
${signed && html`<section aria-labelledby="signed"><h2 id="signed">The signed request</h2>
<h3>Signature base string</h3>
<code class="secret" id="base_string">${signed.baseString}</code><button type="button" class="copy" data-copy="base_string">Copy</button>
<h3>Authorization header</h3>
<code class="secret" id="authorization_header">${signed.authorization}</code><button type="button" class="copy" data-copy="authorization_header">Copy</button>
<h3>curl</h3>
<code class="secret" id="curl_command">${signed.curl}</code><button type="button" class="copy" data-copy="curl_command">Copy</button>
</section>`}`,
  )
}
