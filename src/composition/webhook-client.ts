import type { WebhookAnswer, WebhookClient } from '../domain/revocations/webhook-client.ts'

/** Of a receiver's answer, read at most this much: it is shown in errors, never kept whole. */
const MAX_BODY_CHARACTERS = 4096

/** The webhook client on Node's fetch: each call aborted after its timeout, redirects not followed. */
export function createWebhookClient(): WebhookClient {
  return {
    get: (url, timeoutMs) => exchange(url, { method: 'GET' }, timeoutMs),
    post: (url, body, headers, timeoutMs) => exchange(url, { method: 'POST', body, headers }, timeoutMs),
  }
}

async function exchange(url: string, init: RequestInit, timeoutMs: number): Promise<WebhookAnswer> {
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal })
    const body = (await response.text()).slice(0, MAX_BODY_CHARACTERS)
    return { status: response.status, body }
  } catch (error) {
    if (signal.aborted) return { error: `no answer within ${timeoutMs} ms` }
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error)
    return { error: `cannot reach it: ${cause}` }
  }
}
