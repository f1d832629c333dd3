import { STATUS_CODES } from 'node:http'
import type { FastifyReply } from 'fastify'

/**
 * RFC 9457 problem details, the admin API's one error shape. `type` names the kind of problem (a
 * URN: nothing to fetch), `errors` lists the fields of a refused request, one entry per field.
 */
export interface FieldError {
  /** Where the field is: the body, the query string or the path. */
  in: 'body' | 'query' | 'path'
  /** The field's wire name, with `/index` for an item of a list (`callbacks/0`). */
  field: string
  detail: string
}

export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  errors?: FieldError[]
}

export const PROBLEM_TYPES = {
  validation: 'urn:latchkey:problem:validation',
  conflict: 'urn:latchkey:problem:conflict',
  notFound: 'urn:latchkey:problem:not-found',
  unauthorized: 'urn:latchkey:problem:unauthorized',
  rateLimited: 'urn:latchkey:problem:rate-limited',
  unsupportedMediaType: 'urn:latchkey:problem:unsupported-media-type',
  tooLarge: 'urn:latchkey:problem:too-large',
  methodNotAllowed: 'urn:latchkey:problem:method-not-allowed',
  badRequest: 'urn:latchkey:problem:bad-request',
  unavailable: 'urn:latchkey:problem:unavailable',
  internal: 'urn:latchkey:problem:internal',
} as const

/** What a route throws to answer with a problem. */
export class ProblemError extends Error {
  readonly problem: Problem
  constructor(status: number, type: string, detail: string, errors?: FieldError[]) {
    super(detail)
    this.name = 'ProblemError'
    this.problem = { type, title: STATUS_CODES[status] ?? 'Error', status, detail, ...(errors ? { errors } : {}) }
  }
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  if (problem.status === 401) reply.header('www-authenticate', 'Bearer realm="Latchkey admin"')
  return reply.code(problem.status).type('application/problem+json').send(problem)
}

/** The JSON schema of a problem document, as the OpenAPI document shows it. */
export const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['in', 'field', 'detail'],
        properties: {
          in: { type: 'string', enum: ['body', 'query', 'path'] },
          field: { type: 'string' },
          detail: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const
