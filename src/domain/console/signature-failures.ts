import type { AppRecord } from '../../storage/records.ts'
import type { Clock } from '../clock.ts'
import type { ParsedOAuthRequest } from '../oauth1/parse-signed-request.ts'
import type { RequestInput } from '../request.ts'

/** Which check of a signed request failed, as the developer console names it. */
export type SignatureFailureReason =
  | 'bad_signature'
  | 'timestamp_out_of_bounds'
  | 'nonce_reused'
  | 'token_invalid'
  | 'method_not_allowed'
  | 'body_hash_mismatch'
  | 'app_suspended'

/**
 * One refused signed request of an app, for its developer: never a secret. The base string is the
 * one Latchkey computed (it holds parameters and token values, never a secret or the signature).
 */
export interface SignatureFailure {
  atMs: number
  method: string
  url: string
  reason: SignatureFailureReason
  /** Only for a bad signature: what the client's base string should have been. */
  baseString?: string
}

/** The recent signature failures of each app: at most FAILURES_KEPT, none older than FAILURES_KEPT_MS. */
export interface SignatureFailureLog {
  record(appId: string, failure: SignatureFailure): Promise<void>
  /** Newest first. */
  recent(appId: string, nowMs: number): Promise<SignatureFailure[]>
}

export const FAILURES_KEPT = 50
export const FAILURES_KEPT_MS = 24 * 60 * 60 * 1000

/** The log in this process's memory (each instance sees the failures it refused itself). */
export function createMemoryFailureLog(): SignatureFailureLog {
  const byApp = new Map<string, SignatureFailure[]>()
  const fresh = (failures: SignatureFailure[], nowMs: number) => failures.filter((f) => nowMs - f.atMs < FAILURES_KEPT_MS)
  return {
    async record(appId, failure) {
      const kept = fresh(byApp.get(appId) ?? [], failure.atMs)
      kept.unshift(failure)
      byApp.set(appId, kept.slice(0, FAILURES_KEPT))
    },
    async recent(appId, nowMs) {
      return fresh(byApp.get(appId) ?? [], nowMs)
    },
  }
}

function urlOf(input: RequestInput): string {
  return `${input.scheme}://${input.host}${input.path}${input.query ? `?${input.query}` : ''}`
}

export interface RefusedRequest {
  input: RequestInput
  request: ParsedOAuthRequest
  /** The app the consumer key names; a failure of an unknown key belongs to no app and is not kept. */
  app: AppRecord | undefined
  reason: SignatureFailureReason
}

/**
 * The verifier's hook: keeps a refused request for its app's developer. It never changes the answer
 * the client gets, and a log that fails is ignored (the diagnostics are a convenience).
 */
export async function noteSignatureFailure(deps: { signatureFailures?: SignatureFailureLog | undefined; clock: Clock }, refused: RefusedRequest): Promise<void> {
  if (!refused.app || !deps.signatureFailures) return
  const failure: SignatureFailure = {
    atMs: deps.clock.nowMs(),
    method: refused.input.method,
    url: urlOf(refused.input),
    reason: refused.reason,
    ...(refused.reason === 'bad_signature' ? { baseString: refused.request.baseString } : {}),
  }
  await deps.signatureFailures.record(refused.app.id, failure).catch(() => undefined)
}
