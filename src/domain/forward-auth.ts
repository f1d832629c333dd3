// Forward auth: who is calling an API that a reverse proxy protects (docs/forward-auth.md).
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { parseBearerHeader } from '../protocol/oauth2/bearer-token.ts'
import { identifyCaller, type Caller, type IdentifyCallerDeps } from './identify-caller.ts'
import type { RateLimitedResource } from './rate-limit-table.ts'
import { isFormEncoded, type RequestInput } from './request.ts'

/** The endpoint's row of the rate-limit table: it limits failures per client address; a verified call spends nothing. */
export const FORWARD_AUTH_LIMIT = '/latchkey/forward-auth' satisfies RateLimitedResource

/** Why a request with a form body is refused: the words of the reason header, for the client and the operator. */
export const FORM_BODY_REASON =
  'forward auth cannot check an OAuth 1.0a request with a form body: the proxy does not forward the body, which the signature covers; send the parameters in the query, or use a bearer token'

/** The refusal of a request forward auth cannot check (401 code 32): its reason is the client's to read, in production too. */
export class UncheckableRequest extends ServiceError {
  constructor() {
    super(E.couldNotAuthenticate, { detail: FORM_BODY_REASON })
  }
}

/**
 * The caller of a request a trusted proxy describes (its body never travels). An OAuth 1.0a
 * signature over a form body cannot be checked without that body, so such a request is refused
 * (401 code 32), never accepted unchecked; a bearer token has no signature and may come with any body.
 * Nothing is charged: the API behind the proxy is not Latchkey's, its limits are its own.
 */
export async function identifyForwardedCaller(deps: IdentifyCallerDeps, input: RequestInput): Promise<{ caller: Caller }> {
  const isBearer = parseBearerHeader(input.authorization) !== undefined
  if (!isBearer && isFormEncoded(input.contentType)) throw new UncheckableRequest()
  const { caller } = await identifyCaller(deps, input, null)
  return { caller }
}
