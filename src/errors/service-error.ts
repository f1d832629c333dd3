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
  /**
   * The text a client may see: the message for a 4xx (the client's own mistake, worded for it);
   * for a 5xx always the catalogue's generic text, whatever message was given where it was thrown.
   */
  readonly publicMessage: string

  constructor(def: ErrorDef, options: { message?: string; detail?: string; cause?: unknown } = {}) {
    super(options.message ?? def.message, { cause: options.cause })
    this.name = 'ServiceError'
    this.status = def.status
    this.code = def.code
    this.label = def.label
    this.detail = options.detail
    this.publicMessage = def.status < 500 ? this.message : def.message
  }
}

/** `assertThat(ok, E.x)` keeps a check to one line (after logto's utils/assert-that.ts). */
export function assertThat(
  condition: unknown,
  def: ErrorDef,
  options?: { message?: string; detail?: string },
): asserts condition {
  if (!condition) throw new ServiceError(def, options)
}
