import type { SignatureFailure, SignatureFailureReason } from '../../domain/console/signature-failures.ts'
import type { AppRecord, UserRecord } from '../../storage/records.ts'
import { framedPage, minute } from './frame.ts'
import { html } from './html.ts'

const REASONS: Record<SignatureFailureReason, string> = {
  bad_signature: 'Bad signature: the signature does not match the base string below',
  timestamp_out_of_bounds: "Timestamp out of bounds: the client's clock is off",
  nonce_reused: 'Nonce reused: a request with this nonce was already accepted',
  token_invalid: 'Token invalid: unknown, revoked, expired or of another app',
  method_not_allowed: 'Signature method not allowed for this app (or PLAINTEXT without https)',
  body_hash_mismatch: 'oauth_body_hash does not match the body',
  app_suspended: 'The app is suspended',
}

export interface FailuresView {
  csrfToken: string
  user: UserRecord
  app: AppRecord
  failures: SignatureFailure[]
}

export function signatureFailuresPage(view: FailuresView): string {
  const rows = view.failures.map(
    (f) => html`<li class="failure">
<p><strong>${REASONS[f.reason]}</strong> <span class="muted">(${f.reason})</span></p>
<p>${minute(f.atMs)}: <code>${f.method} ${f.url}</code></p>
${f.parameters && html`<p>Parameters, by where they came from: <code data-parameters>${f.parameters}</code></p>`}
${f.baseString && html`<p>Signature base string Latchkey computed:</p><code class="secret" data-reason="${f.reason}">${f.baseString}</code>`}
</li>`,
  )
  return framedPage(
    { title: `Signature failures of ${view.app.name}`, csrfToken: view.csrfToken, user: view.user },
    html`<h1>Signature failures of ${view.app.name}</h1>
<p><a href="/console/apps/${view.app.id}">Back to ${view.app.name}</a></p>
<p>The last 50 signed requests with this app's consumer key that Latchkey refused, from the last 24 hours, newest first. For a bad signature, compare the base string below with the one your client built: they must be the same, byte for byte. The client itself still gets only the usual error code.</p>
${view.failures.length === 0 ? html`<p>No failures in the last 24 hours.</p>` : html`<ul class="plain">${rows}</ul>`}`,
  )
}
