import type { WebhookStatus } from '../../storage/revocation-types.ts'
import type { AppRecord, UserRecord } from '../../storage/records.ts'
import { csrf, revealed, type Revealed } from './console-apps.ts'
import { alert, framedPage, minute } from './frame.ts'
import { html, type SafeHtml } from './html.ts'

export interface WebhooksView {
  csrfToken: string
  user: UserRecord
  app: AppRecord
  endpoints: WebhookStatus[]
  revealed?: Revealed | undefined
  message?: string | undefined
  url?: string | undefined
}

function endpointItem(view: WebhooksView, endpoint: WebhookStatus): SafeHtml {
  const base = `/console/apps/${view.app.id}/webhooks/${endpoint.id}`
  return html`<li class="webhook" data-webhook="${endpoint.id}">
<p><code>${endpoint.url}</code> ${endpoint.verifiedAtMs === null ? html`<strong>not verified: nothing is sent until it answers the CRC challenge</strong>` : html`<span class="muted">verified</span>`}</p>
<p>Pending: ${String(endpoint.pending)}. Failed: ${String(endpoint.failed)}.${endpoint.lastSuccessAtMs === null ? '' : ` Last delivered ${minute(endpoint.lastSuccessAtMs)}.`}</p>
${endpoint.lastError && html`<p>Last error (${minute(endpoint.lastErrorAtMs ?? 0)}): <code>${endpoint.lastError}</code></p>`}
<div class="actions">
<form method="post" action="${base}/verify">${csrf(view.csrfToken)}<button type="submit" class="secondary">Send the CRC challenge</button></form>
<form method="post" action="${base}/remove">${csrf(view.csrfToken)}<button type="submit" class="secondary">Remove</button></form>
</div>
</li>`
}

/** An app's own revocation webhooks: its resource servers, told when a credential of the app ends (docs/revocation-push.md). */
export function webhooksPage(view: WebhooksView): string {
  const { app } = view
  return framedPage(
    { title: `Revocation webhooks of ${app.name}`, csrfToken: view.csrfToken, user: view.user },
    html`<h1>Revocation webhooks of ${app.name}</h1>
<p><a href="/console/apps/${app.id}">Back to ${app.name}</a></p>
${alert(view.message)}
${view.revealed && revealed(view.revealed)}
<p>Your resource servers hear at once when a credential of this app ends (a token invalidated or revoked, keys rotated, the app suspended…): each event is a POST signed with the endpoint's secret (<code>X-Latchkey-Signature</code>). Register the URL, give its secret to the receiver, then send the CRC challenge; see the <a href="/docs/revocation-push.md">revocation push</a> guide.</p>
${view.endpoints.length === 0 ? html`<p>No webhooks yet.</p>` : html`<ul class="plain">${view.endpoints.map((endpoint) => endpointItem(view, endpoint))}</ul>`}
<h2>Add a webhook</h2>
<form method="post" action="/console/apps/${app.id}/webhooks">
${csrf(view.csrfToken)}
<label for="webhook_url">URL</label>
<input type="url" id="webhook_url" name="url" required maxlength="2048" value="${view.url ?? ''}">
<div class="actions"><button type="submit" id="add_webhook" class="primary">Add webhook</button></div>
</form>`,
  )
}
