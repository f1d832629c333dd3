import type { ErrorDef } from './catalogue.ts'

/**
 * The one error type of the service: what the client sees (status, code, message, label) and what
 * only the logs see (detail, cause). `message` may be narrowed for a case (for example to name the
 * missing parameter) but never carries a secret.
 */
export class ServiceError extends Error {
  readonly status: number
  readonly code: number
  readonly label: string | undefined
  readonly detail: string | undefined
  /** The input field the error is about (a domain name such as `screenName`), when it is about one. */
  readonly field: string | undefined
  /** Whether the message may reach the client; a 5xx never shows its own text. */
  readonly expose: boolean

  constructor(def: ErrorDef, options: { message?: string; detail?: string; field?: string; cause?: unknown } = {}) {
    super(options.message ?? def.message, { cause: options.cause })
    this.name = 'ServiceError'
    this.status = def.status
    this.code = def.code
    this.label = def.label
    this.detail = options.detail
    this.field = options.field
    this.expose = def.status < 500
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
