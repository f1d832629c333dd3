import type { FastifyRequest } from 'fastify'
import { parseFormEncoded } from '../protocol/form.ts'

/** The fields of a form-encoded POST body: the first value per name, so a repeat changes nothing. */
export function formFields(request: FastifyRequest): Map<string, string> {
  const body = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : ''
  const values = new Map<string, string>()
  for (const [name, value] of parseFormEncoded(body)) {
    if (!values.has(name)) values.set(name, value)
  }
  return values
}
