import type { ServiceError } from '../errors/service-error.ts'

/** The JSON error body every endpoint answers with: `{"errors":[{"code":N,"message":"..."}]}`. */
export function errorBody(error: ServiceError): { errors: Array<{ code: number; message: string; label?: string }> } {
  const entry: { code: number; message: string; label?: string } = { code: error.code, message: error.publicMessage }
  if (error.label) entry.label = error.label
  return { errors: [entry] }
}
