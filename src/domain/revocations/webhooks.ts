import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { randomAlphanumeric, randomBase64Url } from '../../protocol/secrets.ts'
import { webhookSignature } from '../../protocol/webhook-signature.ts'
import type { WebhookEndpointRecord, WebhookStatus } from '../../storage/revocation-types.ts'
import type { DomainDeps } from '../deps.ts'
import { callbackOrigin, changeWithAudit } from '../audit.ts'
import { assertOneLine } from '../plain-text.ts'
import { findApp } from '../registry/apps.ts'
import type { WebhookAnswer, WebhookClient } from './webhook-client.ts'

/** What an operator's webhook calls touch. */
export type WebhookDeps = Pick<DomainDeps, 'stores' | 'clock' | 'newId' | 'settings' | 'webhookClient'>

const MAX_URL_LENGTH = 2048
/** Of an answer to show in an error: enough to recognise it, never a wall of HTML. */
const SHOWN_CHARACTERS = 200

/** An endpoint's URL: http or https, no user or password in it, bounded. */
function checkedUrl(value: string): string {
  // WHATWG URL would percent-encode a control character and take the URL: it is the field's mistake.
  assertOneLine(value, 'url', 'url')
  let url: URL | undefined
  try {
    url = value.length <= MAX_URL_LENGTH ? new URL(value) : undefined
  } catch {
    url = undefined
  }
  assertThat(url && (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && url.hash === '', E.invalidParameter, {
    message: `url must be an http or https URL of at most ${MAX_URL_LENGTH} characters, without a user, password or fragment`,
    field: 'url',
  })
  return url.href
}

/**
 * Registers a webhook endpoint for revocation events (every app's, or one app's): its signing
 * secret is made here and answered once (kept sealed). Nothing is sent to it until its receiver
 * answers the CRC challenge (verifyWebhook); the events of the meantime wait for it.
 */
export async function addWebhook(deps: WebhookDeps, input: { url: string; appId?: string | undefined }): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const url = checkedUrl(input.url)
  const appId = input.appId === undefined ? null : (await findApp(deps, input.appId)).id
  const secret = `whsec_${randomAlphanumeric(40)}`
  const id = deps.newId()
  const createdAtMs = deps.clock.nowMs()
  await changeWithAudit(deps, async (tx, audit) => {
    await tx.webhooks.add({ id, url, appId, secret, createdAtMs })
    await audit({ event: 'webhook.added', appId, detail: auditDetail(id, url) })
  })
  return { endpoint: { id, url, appId, createdAtMs, verifiedAtMs: null, lastSuccessAtMs: null, lastError: null, lastErrorAtMs: null }, secret }
}

/** What a receiver answered to the CRC challenge, when it was not the expected token. */
function challengeRefusal(answer: WebhookAnswer, expected: string): string | undefined {
  if ('error' in answer) return answer.error
  const shown = answer.body.slice(0, SHOWN_CHARACTERS)
  if (answer.status < 200 || answer.status > 299) return `it answered HTTP ${answer.status}: ${shown}`
  let token: unknown
  try {
    token = (JSON.parse(answer.body) as { response_token?: unknown }).response_token
  } catch {
    return `its answer is not JSON: ${shown}`
  }
  if (token === undefined) return 'its JSON answer has no response_token'
  return token === expected ? undefined : 'its response_token is not sha256=base64(HMAC-SHA256(secret, crc_token)) under this endpoint\'s secret'
}

/**
 * X's CRC challenge: GET the URL with `crc_token=<random>`; the receiver must answer
 * `{"response_token": "sha256=" + base64(HMAC-SHA256(secret, crc_token))}`. On success the endpoint
 * starts receiving events (those waiting first); otherwise a 400 that says what it answered.
 */
export async function verifyWebhook(deps: WebhookDeps, id: string): Promise<WebhookEndpointRecord> {
  const endpoint = await findWebhook(deps, id)
  const client = webhookClientOf(deps)
  const crcToken = randomBase64Url(24)
  const url = new URL(endpoint.url)
  url.searchParams.set('crc_token', crcToken)
  const answer = await client.get(url.href, deps.settings.webhookTimeoutSeconds * 1000)
  const refusal = challengeRefusal(answer, webhookSignature(endpoint.secret, crcToken))
  if (refusal !== undefined) {
    throw new ServiceError(E.invalidParameter, { message: `the webhook at ${endpoint.url} failed the CRC challenge: ${refusal}`, field: 'url' })
  }
  const verifiedAtMs = deps.clock.nowMs()
  await changeWithAudit(deps, async (tx, audit) => {
    if (await tx.webhooks.markVerified(endpoint.id, verifiedAtMs)) await audit({ event: 'webhook.verified', appId: endpoint.appId, detail: auditDetail(endpoint.id, endpoint.url) })
  })
  const { secret: _secret, ...record } = endpoint
  return { ...record, verifiedAtMs }
}

export async function findWebhook(deps: Pick<DomainDeps, 'stores'>, id: string) {
  const endpoint = /^\d{1,20}$/.test(id) ? await deps.stores.webhooks.find(id) : undefined
  if (!endpoint) throw new ServiceError(E.notFound, { message: `no webhook with id ${id}` })
  return endpoint
}

export async function removeWebhook(deps: Pick<DomainDeps, 'stores' | 'clock'>, id: string): Promise<void> {
  const endpoint = await findWebhook(deps, id)
  const removed = await changeWithAudit(deps, async (tx, audit) => {
    if (!(await tx.webhooks.remove(endpoint.id))) return false
    await audit({ event: 'webhook.removed', appId: endpoint.appId, detail: auditDetail(endpoint.id, endpoint.url) })
    return true
  })
  if (!removed) throw new ServiceError(E.notFound, { message: `no webhook with id ${id}` })
}

/** Every endpoint with what waits for it (pending), what it never took (failed), its last error and last success. */
export function webhookStatus(deps: Pick<DomainDeps, 'stores'>): Promise<WebhookStatus[]> {
  return deps.stores.webhooks.list()
}

/**
 * Sends events again: the endpoint's failed ones, or every event since a time that concerns it (as
 * long as the outbox keeps them: the revocation retention). Answers how many were queued.
 */
export async function replayWebhook(deps: Pick<DomainDeps, 'stores' | 'clock'>, id: string, what: { failed: true } | { sinceMs: number }): Promise<number> {
  const endpoint = await findWebhook(deps, id)
  const which: Record<string, string | boolean> = 'failed' in what ? { failed: true } : { since: new Date(what.sinceMs).toISOString() }
  return changeWithAudit(deps, async (tx, audit) => {
    const queued = await tx.webhooks.replay(endpoint.id, what, deps.clock.nowMs())
    await audit({ event: 'webhook.replayed', appId: endpoint.appId, detail: { ...auditDetail(endpoint.id, endpoint.url), ...which, queued } })
    return queued
  })
}

/** What the audit trail keeps of an endpoint: its id and its URL's origin (a path or query may hold the receiver's own token). */
const auditDetail = (id: string, url: string) => ({ webhook_id: id, url: callbackOrigin(url) })

function webhookClientOf(deps: Pick<DomainDeps, 'webhookClient'>): WebhookClient {
  if (!deps.webhookClient) throw new Error('no webhook client: the composition root gives one to every domain')
  return deps.webhookClient
}

/** The endpoint as the CLI's --json and the admin API show it. */
export function webhookJson(endpoint: WebhookEndpointRecord | WebhookStatus) {
  const time = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
  return {
    id: endpoint.id,
    url: endpoint.url,
    app_id: endpoint.appId,
    created_at: new Date(endpoint.createdAtMs).toISOString(),
    verified: endpoint.verifiedAtMs !== null,
    ...('pending' in endpoint ? { pending: endpoint.pending, failed: endpoint.failed } : {}),
    last_success_at: time(endpoint.lastSuccessAtMs),
    last_error: endpoint.lastError,
    last_error_at: time(endpoint.lastErrorAtMs),
  }
}
