import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyContextConfig, FastifyInstance, FastifyRequest, onErrorHookHandler, onRequestHookHandler, onResponseHookHandler } from 'fastify'
import type { ParameterPlaces } from '../../domain/masked-request.ts'
import { UNOBSERVED, type DomainObserver, type OAuth1VerificationResult, type SignedRequestSeen } from '../../domain/observe.ts'
import { rateLimitedEndpoint } from '../../domain/rate-limit-table.ts'
import type { ServiceError } from '../../errors/service-error.ts'
import { toServiceError } from '../json-errors.ts'
import { requestPath } from '../request-url.ts'

// The test mode's request journal (issue 47, item 6; like WireMock's verify): the last calls to the
// API per app, with what the verifier saw of each signed one. Installed only in test mode
// (AppDeps.testKit): outside it no hook, no async context, no event exists.

export type JournalOutcome = 'accepted' | 'refused' | 'injected'

/** One call, as the control route GET /admin/v1/test/requests shows it. Values are masked as the failure log's. */
export interface JournalEntry {
  id: number
  at: string
  method: string
  /** The path without the query (the query's values may be secrets). */
  path: string
  /** `POST /oauth2/token`: the method and the route path, as a fault names it. */
  endpoint: string
  status: number
  outcome: JournalOutcome
  /** The app the OAuth 1.0a consumer key names, or the one an OAuth 2.0 call authenticated as; else null. */
  app: { id: string; consumer_key: string } | null
  /** Why it was refused or injected: the verifier's result, or the refusal's detail or message. */
  reason: string | null
  /** The error code and message the client got (null when accepted). */
  error: { code: number; message: string } | null
  /** What the OAuth 1.0a verifier saw (null for a call it did not judge). */
  oauth1: { result: OAuth1VerificationResult; parameters: ParameterPlaces; base_string: string | null } | null
  /** The injected fault's id. */
  fault: number | null
}

export interface JournalFilter {
  /** An app's id or consumer key. */
  app?: string | undefined
  /** `POST /oauth2/token`, or the route path alone. */
  endpoint?: string | undefined
  outcome?: JournalOutcome | undefined
}

export interface RequestJournal {
  record(entry: Omit<JournalEntry, 'id'>): JournalEntry
  /** Newest first. */
  list(filter?: JournalFilter): JournalEntry[]
  clear(): void
  /** The domain's observer, with the signed-request event feeding this journal (test mode's domain gets it). */
  observing(observer: DomainObserver | undefined): DomainObserver
  /** Marks the call as answered by a fault (installFaults). */
  injected(request: FastifyRequest, fault: { id: number; kind: string }): void
  /** The journal's time (the test mode's clock). */
  now(): number
  /** Internal to installJournal: the call's pending record, and the async context the domain's event finds it in. */
  readonly calls: AsyncLocalStorage<PendingCall>
  readonly pending: WeakMap<FastifyRequest, PendingCall>
}

/** What the journal gathers of a call before it is answered. */
export interface PendingCall {
  seen?: SignedRequestSeen
  /** The app an OAuth 2.0 call authenticated as. */
  app?: { id: string; consumer_key: string }
  error?: ServiceError
  fault?: { id: number; kind: string }
}

export const JOURNAL_PER_APP = 100

/** Keeps the last `perApp` calls of each app (and as many of calls without one). */
export function createRequestJournal(options: { perApp?: number; now?: () => number } = {}): RequestJournal {
  const perApp = options.perApp ?? JOURNAL_PER_APP
  const now = options.now ?? Date.now
  const byApp = new Map<string, JournalEntry[]>()
  let nextId = 1
  const calls = new AsyncLocalStorage<PendingCall>()
  const pending = new WeakMap<FastifyRequest, PendingCall>()
  return {
    record(fields) {
      const entry: JournalEntry = { id: nextId++, ...fields }
      const key = entry.app?.id ?? ''
      const entries = byApp.get(key) ?? []
      entries.push(entry)
      if (entries.length > perApp) entries.shift()
      byApp.set(key, entries)
      return entry
    },
    list(filter = {}) {
      return [...byApp.values()]
        .flat()
        .filter((entry) => matches(entry, filter))
        .sort((a, b) => b.id - a.id)
    },
    clear: () => byApp.clear(),
    observing: (observer) => ({
      ...(observer ?? UNOBSERVED),
      signedRequest(seen) {
        const call = calls.getStore()
        if (call) call.seen = seen
        observer?.signedRequest?.(seen)
      },
      callerApp(appId, consumerKey) {
        const call = calls.getStore()
        if (call) call.app = { id: appId, consumer_key: consumerKey }
        observer?.callerApp?.(appId, consumerKey)
      },
    }),
    injected(request, fault) {
      const call = pending.get(request)
      if (call) call.fault = fault
    },
    now,
    calls,
    pending,
  }
}

function matches(entry: JournalEntry, filter: JournalFilter): boolean {
  if (filter.outcome !== undefined && entry.outcome !== filter.outcome) return false
  if (filter.app !== undefined && entry.app?.id !== filter.app && entry.app?.consumer_key !== filter.app) return false
  if (filter.endpoint !== undefined && entry.endpoint !== filter.endpoint && entry.endpoint.split(' ', 2)[1] !== filter.endpoint) return false
  return true
}

/** The API's routes (those with a rate limit per app): the pages (limited per address), documents and probes are not journaled. */
function isJournaled(request: FastifyRequest): boolean {
  const config = request.routeOptions.config as FastifyContextConfig | undefined
  return config?.rateLimit !== undefined && rateLimitedEndpoint(config.rateLimit).countedBy !== 'address'
}

/** Records every call to the API in the journal once it is answered. */
export function installJournal(app: FastifyInstance, journal: RequestJournal): void {
  // Named: a test checks that no test-kit hook is installed outside test mode.
  const testKitJournalOpen: onRequestHookHandler = (request, _reply, done) => {
    if (!isJournaled(request)) return done()
    const call: PendingCall = {}
    journal.pending.set(request, call)
    // The rest of the call (hooks, route, use case) runs in this context: the domain's event finds it.
    journal.calls.run(call, done)
  }
  const testKitJournalError: onErrorHookHandler = (request, _reply, error, done) => {
    const call = journal.pending.get(request)
    if (call) call.error = toServiceError(error)
    done()
  }
  const testKitJournalClose: onResponseHookHandler = (request, reply, done) => {
    const call = journal.pending.get(request)
    if (!call) return done()
    journal.pending.delete(request)
    journal.record(entryOf(request, reply.statusCode, call, journal.now()))
    done()
  }
  app.addHook('onRequest', testKitJournalOpen)
  app.addHook('onError', testKitJournalError)
  app.addHook('onResponse', testKitJournalClose)
}

function entryOf(request: FastifyRequest, status: number, call: PendingCall, atMs: number): Omit<JournalEntry, 'id'> {
  const { seen, error, fault } = call
  const outcome: JournalOutcome = fault ? 'injected' : status < 400 ? 'accepted' : 'refused'
  const verdict = seen && seen.result !== 'ok' ? seen.result : undefined
  return {
    at: new Date(atMs).toISOString(),
    method: request.method,
    path: requestPath(request),
    endpoint: `${request.method} ${request.routeOptions.url ?? requestPath(request)}`,
    status,
    outcome,
    app: seen?.app ? { id: seen.app.id, consumer_key: seen.app.consumerKey } : (call.app ?? null),
    reason: fault ? `injected: ${fault.kind}` : status < 400 ? null : (verdict ?? error?.detail ?? error?.publicMessage ?? null),
    error: status < 400 || !error ? null : { code: error.code, message: error.publicMessage },
    oauth1: seen ? { result: seen.result, parameters: seen.parameters, base_string: seen.baseString ?? null } : null,
    fault: fault?.id ?? null,
  }
}
