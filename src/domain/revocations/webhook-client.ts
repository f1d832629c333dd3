/** What an HTTP exchange with a webhook endpoint came to: its status and body, or why there was none. */
export type WebhookAnswer = { status: number; body: string } | { error: string }

/**
 * Outbound HTTP to webhook endpoints, given to the domain by the composition root
 * (src/composition/webhook-client.ts): the domain decides what to send and what an answer means.
 * Each call gives up after `timeoutMs`, and never follows a redirect.
 */
export interface WebhookClient {
  get(url: string, timeoutMs: number): Promise<WebhookAnswer>
  post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<WebhookAnswer>
}
