import { SIGNATURE_HEADER, webhookSignature } from '../../protocol/webhook-signature.ts'
import type { DueDelivery } from '../../storage/revocation-types.ts'
import type { DomainDeps } from '../deps.ts'
import { revocationEventJson } from './events.ts'
import type { WebhookAnswer, WebhookClient } from './webhook-client.ts'

/** The first retry waits this long; each next one twice as long, up to BACKOFF_CAP_MS. */
export const FIRST_RETRY_MS = 1_000
export const BACKOFF_CAP_MS = 5 * 60_000
/** Events handed to the endpoints per turn. */
const FAN_OUT_BATCH = 500
/** How often an idle loop looks for new events. */
const POLL_MS = 1_000
/** How often (in turns) outbox events past their retention are deleted. */
const TURNS_BETWEEN_PRUNES = 600
/** Of a receiver's answer, kept as the endpoint's last error. */
const ERROR_CHARACTERS = 200

/** The wait before the next attempt, after `failures` failed ones. */
export const backoffMs = (failures: number): number => Math.min(BACKOFF_CAP_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1))

export interface RevocationDelivery {
  /** Stops the loop, waits for the turn in flight and gives the lease up. */
  stop(): Promise<void>
}

export interface DeliveryOptions {
  /** This process, as the lease names its holder. */
  holder: string
  /** The Redis channel (PostgreSQL + Redis): each event once it is handed to the endpoints. */
  publish?: ((message: string) => Promise<unknown>) | undefined
  onError(message: string, error: unknown): void
}

type DeliveryDeps = Pick<DomainDeps, 'stores' | 'clock' | 'settings'> & { webhookClient: WebhookClient }

/**
 * The revocation push's delivery loop, off every request's path: one process at a time holds the
 * lease (a row of the database, renewed each turn, taken over when it expires) and hands new outbox
 * events to the endpoints, publishes them on the Redis channel, and sends each endpoint its oldest
 * pending event, signed; a failure waits (exponential backoff, capped) and is tried again, and an
 * event past the retention is marked failed. At least once: an event leaves its endpoint's queue
 * only after a 2xx, so a process killed mid-delivery leaves it for the next holder.
 */
export function startRevocationDelivery(domain: Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'webhookClient'>, options: DeliveryOptions): RevocationDelivery {
  const { webhookClient } = domain
  if (!webhookClient) throw new Error('no webhook client: the composition root gives one to every domain')
  const deps: DeliveryDeps = { ...domain, webhookClient }
  const timeoutMs = deps.settings.webhookTimeoutSeconds * 1000
  // The lease outlives a turn's slowest delivery: no second holder starts while one still sends.
  const leaseMs = Math.max(10_000, 2 * timeoutMs + 5_000)
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let turns = 0
  let inFlight: Promise<void> = Promise.resolve()
  const schedule = (busy: boolean) => {
    if (stopped) return
    timer = setTimeout(() => (inFlight = run()), busy ? 0 : POLL_MS)
    timer.unref()
  }
  const run = async () => {
    let busy = false
    try {
      busy = await turn(deps, options, { leaseMs, timeoutMs, prune: turns++ % TURNS_BETWEEN_PRUNES === 0 })
    } catch (error) {
      options.onError('revocation delivery failed; it goes on at its next turn', error)
    }
    schedule(busy)
  }
  schedule(false)
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      await inFlight
      await deps.stores.webhooks.releaseLease(options.holder).catch(() => {})
    },
  }
}

/** One turn: answers whether there was work (then the next turn comes at once). */
async function turn(deps: DeliveryDeps, options: DeliveryOptions, { leaseMs, timeoutMs, prune }: { leaseMs: number; timeoutMs: number; prune: boolean }): Promise<boolean> {
  const { webhooks } = deps.stores
  if (!(await webhooks.claimLease(options.holder, deps.clock.nowMs(), leaseMs))) return false
  const retentionMs = deps.settings.revocationRetentionHours * 3_600_000
  if (prune) await webhooks.prune(deps.clock.nowMs() - retentionMs)
  const fanned = await webhooks.fanOut(FAN_OUT_BATCH)
  if (options.publish) {
    for (const event of fanned) await options.publish(JSON.stringify(revocationEventJson(event))).catch((error: unknown) => options.onError('could not publish a revocation event on Redis', error))
  }
  const due = await webhooks.due(deps.clock.nowMs())
  const sent = await Promise.all(due.map((delivery) => deliver(deps, delivery, timeoutMs, retentionMs)))
  return fanned.length > 0 || sent.some(Boolean)
}

/** One attempt at the endpoint's oldest pending event: true when it was taken. */
async function deliver(deps: DeliveryDeps, { endpoint, event, attempts }: DueDelivery, timeoutMs: number, retentionMs: number): Promise<boolean> {
  const body = JSON.stringify(revocationEventJson(event))
  const headers = { 'content-type': 'application/json', [SIGNATURE_HEADER]: webhookSignature(endpoint.secret, body), 'x-latchkey-event-id': event.id }
  const answer = await deps.webhookClient.post(endpoint.url, body, headers, timeoutMs)
  const nowMs = deps.clock.nowMs()
  if (!('error' in answer) && answer.status >= 200 && answer.status <= 299) {
    await deps.stores.webhooks.delivered(endpoint.id, event.seq, nowMs)
    return true
  }
  const failures = attempts + 1
  await deps.stores.webhooks.attemptFailed(endpoint.id, event.seq, {
    error: failureOf(answer),
    nowMs,
    nextAttemptAtMs: nowMs + backoffMs(failures),
    giveUp: event.atMs < nowMs - retentionMs,
  })
  return false
}

const failureOf = (answer: WebhookAnswer): string => ('error' in answer ? answer.error : `HTTP ${answer.status}: ${answer.body.slice(0, ERROR_CHARACTERS)}`)
