import type { ErrorDef } from './catalogue.ts'

/** The state of the limit a call was counted against, for the answer's x-rate-limit-* headers. */
export interface RateLimitState {
  limit: number
  remaining: number
  resetAtMs: number
}

/**
 * The one error type of the service: what the client sees (status, code, message, label) and what
 * only the logs see (detail, cause). `message` may be narrowed for a case (for example to name the
 * missing parameter) but never carries a secret.
 */
export class ServiceError extends Error {
  readonly status: number
  readonly code: number
  readonly label: string | undefined
  /** The RFC 6749 §5.2 error code, for the OAuth 2.0 user-context endpoints (catalogue `oauth2`). */
  readonly oauth2: string | undefined
  /** The API v2 problem's title and type (catalogue `problem`). */
  readonly problem: { readonly title: string; readonly type: string } | undefined
  readonly detail: string | undefined
  /** The input field the error is about (a domain name such as `screenName`), when it is about one. */
  readonly field: string | undefined
  /** Every bad field of the input with its own reason, when several were refused at once (the first is `field`). */
  readonly fields: ReadonlyArray<{ readonly field: string; readonly message: string }>
  /**
   * The text a client may see: the message for a 4xx (the client's own mistake, worded for it);
   * for a 5xx always the catalogue's generic text, whatever message was given where it was thrown.
   */
  readonly publicMessage: string
  /**
   * The limit the call was counted against before it was refused (the limit itself, or a check
   * after the count): its answer carries the same x-rate-limit-* headers as a success would.
   * Set where it is thrown, or by the domain's charge step (domain/rate-limits.ts) on its way out.
   */
  rateLimit: RateLimitState | undefined

  constructor(
    def: ErrorDef,
    options: { message?: string; detail?: string; field?: string; fields?: ServiceError['fields']; cause?: unknown; rateLimit?: RateLimitState } = {},
  ) {
    super(options.message ?? def.message, { cause: options.cause })
    this.name = 'ServiceError'
    this.status = def.status
    this.code = def.code
    this.label = def.label
    this.oauth2 = def.oauth2
    this.problem = def.problem
    this.detail = options.detail
    this.field = options.field
    this.fields = options.fields ?? (options.field === undefined ? [] : [{ field: options.field, message: this.message }])
    this.publicMessage = def.status < 500 ? this.message : def.message
    this.rateLimit = options.rateLimit
  }
}

/** `assertThat(ok, E.x)` keeps a check to one line (after logto's utils/assert-that.ts). */
export function assertThat(
  condition: unknown,
  def: ErrorDef,
  options?: { message?: string; detail?: string; field?: string },
): asserts condition {
  if (!condition) throw new ServiceError(def, options)
}
