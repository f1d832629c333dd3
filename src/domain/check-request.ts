// A resource server hands Latchkey a whole request it received and asks who is calling: the same
// checks the service's own API routes run (identify-caller.ts), over HTTP, so that an API in any
// language can check OAuth 1.0a signatures without holding a secret of the service.
import { z } from 'zod'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import type { DomainDeps } from './deps.ts'
import { identifyCaller, type Caller } from './identify-caller.ts'
import { authenticateAppClient, readClientCredentials } from './oauth2/client-credentials.ts'
import type { RateLimitedResource } from './rate-limit-table.ts'
import { afterCharge, admitCall, type Limited } from './rate-limits.ts'
import { bodyText, type RequestInput } from './request.ts'
import type { LimitState } from '../storage/types.ts'

/** What this use case touches. */
export type CheckRequestDeps = Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'observe'>

/** The limit every check counts against, per resource server (the route's address limit too). */
export const CHECK_REQUEST_LIMIT = '/latchkey/check-request' satisfies RateLimitedResource

/**
 * The limit a checked call is charged to when the resource server asks (`charge: true`): one budget
 * per app, or per app and person, for everything the APIs behind Latchkey serve. Per-route limits
 * of their own are theirs to keep.
 */
export const RESOURCE_API_LIMIT = '/latchkey/resource-api' satisfies RateLimitedResource

/** The request as the resource server received it (the JSON body of the check). */
export const requestToCheckSchema = z
  .object({
    method: z.string().regex(/^[A-Za-z]{1,16}$/, 'an HTTP method'),
    /** The full URL as the client addressed it: the signature covers scheme, host, path and query. */
    url: z.string().max(8192).url(),
    // null as absent: what a client that passes on a missing header as-is sends (Python's None, Go's nil).
    authorization: z.string().max(8192).nullish(),
    /** The raw body, when it is a form body (application/x-www-form-urlencoded): its parameters are signed. */
    body: z.string().max(65536).nullish(),
    content_type: z.string().max(256).nullish(),
    /** Count the call against the caller's limit of the APIs behind Latchkey (RESOURCE_API_LIMIT). */
    charge: z.boolean().nullish(),
  })
  .strict()

export type RequestToCheck = z.infer<typeof requestToCheckSchema>

/** Who is calling, with the caller's limit when the check charged it; or the refusal X would answer. */
export type Verdict = { caller: Caller; callerLimit: LimitState | undefined } | { refusal: ServiceError }

/**
 * POST /latchkey/check-request: a registered resource server (HTTP Basic with its consumer key and
 * secret, as for introspection) asks about a request it received. The check itself is charged to
 * the resource server; the verdict says who is calling or how X would refuse them — a signature,
 * timestamp or nonce that fails, a token that ended, a caller over its limit. A nonce is spent by
 * the check, once, whichever instance answers. An outage is the check's own failure (503), never a
 * refusal of the caller.
 */
export async function checkRequest(deps: CheckRequestDeps, input: RequestInput): Promise<Limited<{ verdict: Verdict }>> {
  const server = await authenticateAppClient(deps, readClientCredentials(input.authorization, []), { requireResourceServer: true })
  const { limit } = await admitCall(deps, CHECK_REQUEST_LIMIT, { appId: server.id }, { input })
  return afterCharge(limit, async () => ({ verdict: await verdictOf(deps, parseRequestToCheck(jsonBody(input))) }))
}

/** The check's JSON body, or 400 code 1003. */
function jsonBody(input: Pick<RequestInput, 'body' | 'contentType'>): unknown {
  if (input.body === undefined || !/^application\/json\b/i.test(input.contentType ?? '')) {
    throw new ServiceError(E.invalidParameter, { message: 'The request to check is a JSON body (application/json).', detail: 'check without a JSON body' })
  }
  try {
    return JSON.parse(bodyText(input.body))
  } catch {
    throw new ServiceError(E.invalidParameter, { message: 'The request to check is not valid JSON.', detail: 'check with unparsable JSON' })
  }
}

async function verdictOf(deps: CheckRequestDeps, toCheck: RequestToCheck): Promise<Verdict> {
  const charge = toCheck.charge === true ? RESOURCE_API_LIMIT : null
  try {
    const { caller, limit } = await identifyCaller(deps, inputOf(toCheck), charge)
    return { caller, callerLimit: limit }
  } catch (error) {
    if (error instanceof ServiceError && error.status < 500) return { refusal: error }
    throw error
  }
}

/** The request to check, or 400 code 1003 naming what is wrong with it. */
function parseRequestToCheck(toCheck: unknown): RequestToCheck {
  const parsed = requestToCheckSchema.safeParse(toCheck)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.join('.') || 'body'
    throw new ServiceError(E.invalidParameter, { message: `Invalid ${field}: ${issue?.message ?? 'not a request'}.`, field, detail: 'request to check refused' })
  }
  if (!/^https?:$/.test(new URL(parsed.data.url).protocol)) {
    throw new ServiceError(E.invalidParameter, { message: 'Invalid url: an http or https URL.', field: 'url' })
  }
  return parsed.data
}

/** The checked request as the use cases read it. */
function inputOf(request: RequestToCheck): RequestInput {
  const url = new URL(request.url)
  return {
    method: request.method.toUpperCase(),
    scheme: url.protocol.slice(0, -1),
    host: url.host,
    path: url.pathname,
    query: url.search.slice(1),
    authorization: request.authorization ?? undefined,
    contentType: request.content_type ?? (request.body == null ? undefined : 'application/x-www-form-urlencoded'),
    body: request.body ?? undefined,
    isSecure: url.protocol === 'https:',
  }
}
