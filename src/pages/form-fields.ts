import type { FastifyRequest } from 'fastify'
import { parseFormEncoded } from '../protocol/form.ts'

/** The first value per name of form-encoded text: a repeated field never changes which value is used. */
export function firstValues(text: string): Map<string, string> {
  const values = new Map<string, string>()
  for (const [name, value] of parseFormEncoded(text)) {
    if (!values.has(name)) values.set(name, value)
  }
  return values
}

/** The fields of a form-encoded POST body, the first value of each. */
export function formFields(request: FastifyRequest): Map<string, string> {
  return firstValues(Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '')
}
