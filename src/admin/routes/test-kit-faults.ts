import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { UnknownEndpointError, type FaultQueue, type FaultRule } from '../../web/test-kit/faults.ts'
import type { JournalFilter, RequestJournal } from '../../web/test-kit/journal.ts'
import { PROBLEM_TYPES, ProblemError } from '../problem.ts'
import { json, noContent, responses } from '../schemas.ts'

/**
 * X's failures on demand and the request journal (issue 47, items 5 and 6) as control calls.
 * Registered only in test mode, never by buildAdminApp; the rules are src/web/test-kit/'s.
 */

const ENDPOINT = { type: 'string', pattern: '^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /[\\x21-\\x7e]{0,200}$', description: 'The method and the route path: `POST /oauth2/token`.' } as const
const KINDS = ['rate_limited', 'over_capacity', 'invalid_token', 'too_often', 'custom'] as const
const PRINTABLE = '^[^\\u0000-\\u001f\\u007f]+$'

const FAULT_RULE = {
  type: 'object',
  required: ['endpoint', 'times', 'kind'],
  properties: {
    endpoint: ENDPOINT,
    times: { type: 'integer', minimum: 1, maximum: 1000, description: 'How many of the next calls fail.' },
    kind: { type: 'string', enum: KINDS },
    status: { type: 'integer', minimum: 400, maximum: 599, description: 'custom only (required there).' },
    code: { type: 'integer', minimum: 0, maximum: 99999, description: "custom only: X's error code." },
    message: { type: 'string', minLength: 1, maxLength: 500, pattern: PRINTABLE, description: 'custom only.' },
  },
  additionalProperties: false,
} as const

const FAULT = {
  type: 'object',
  required: ['id', 'endpoint', 'times', 'remaining', 'kind'],
  properties: { id: { type: 'integer' }, remaining: { type: 'integer', description: 'Calls still to fail.' }, ...FAULT_RULE.properties },
  additionalProperties: false,
} as const

const NAMES = { type: 'array', items: { type: 'string' } } as const
const ENTRY = {
  type: 'object',
  required: ['id', 'at', 'method', 'path', 'endpoint', 'status', 'outcome', 'app', 'reason', 'error', 'oauth1', 'fault'],
  properties: {
    id: { type: 'integer' },
    at: { type: 'string', format: 'date-time' },
    method: { type: 'string' },
    path: { type: 'string', description: 'Without the query.' },
    endpoint: { type: 'string' },
    status: { type: 'integer' },
    outcome: { type: 'string', enum: ['accepted', 'refused', 'injected'] },
    app: { type: ['object', 'null'], required: ['id', 'consumer_key'], properties: { id: { type: 'string' }, consumer_key: { type: 'string' } }, additionalProperties: false },
    reason: { type: ['string', 'null'] },
    error: { type: ['object', 'null'], required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } }, additionalProperties: false },
    oauth1: {
      type: ['object', 'null'],
      required: ['result', 'parameters', 'base_string'],
      properties: {
        result: { type: 'string' },
        parameters: { type: 'object', required: ['header', 'query', 'body'], properties: { header: NAMES, query: NAMES, body: NAMES }, additionalProperties: false },
        base_string: { type: ['string', 'null'], description: 'Every value `[hidden]` but those of harmless parameters, as in the failure log.' },
      },
      additionalProperties: false,
    },
    fault: { type: ['integer', 'null'] },
  },
  additionalProperties: false,
} as const

const FILTER = {
  type: 'object',
  properties: {
    app: { type: 'string', minLength: 1, maxLength: 200, description: "An app's id or consumer key." },
    endpoint: { type: 'string', minLength: 1, maxLength: 210, description: '`POST /oauth2/token`, or the route path alone.' },
    outcome: { type: 'string', enum: ['accepted', 'refused', 'injected'] },
  },
  additionalProperties: false,
} as const

const CUSTOM_ONLY = ['status', 'code', 'message'] as const

/** A custom fault names its status; the other kinds are X's own answers and take none of the custom fields. */
function checkRule(rule: FaultRule): FaultRule {
  if (rule.kind === 'custom' && rule.status === undefined) {
    throw new ProblemError(400, PROBLEM_TYPES.validation, 'The request has invalid fields.', [{ in: 'body', field: 'status', detail: 'is required for a custom fault' }])
  }
  const extra = rule.kind === 'custom' ? [] : CUSTOM_ONLY.filter((field) => rule[field] !== undefined)
  if (extra.length > 0) {
    throw new ProblemError(400, PROBLEM_TYPES.validation, 'The request has invalid fields.', extra.map((field) => ({ in: 'body' as const, field, detail: 'is for custom faults only' })))
  }
  return rule
}

/** The fault added, or a 400 naming the endpoint when the service has no such route. */
function added(queue: FaultQueue, rule: FaultRule) {
  try {
    return queue.add(rule)
  } catch (error) {
    if (!(error instanceof UnknownEndpointError)) throw error
    throw new ProblemError(400, PROBLEM_TYPES.validation, 'The request has invalid fields.', [{ in: 'body', field: 'endpoint', detail: 'is not an endpoint of the service (the method and the route path: `POST /oauth2/token`)' }])
  }
}

export function testFaultRoutes(queue: FaultQueue): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    app.post<{ Body: FaultRule }>(
      '/admin/v1/test/faults',
      {
        schema: {
          operationId: 'testAddFault',
          tags: ['test'],
          summary: "Test mode: the next calls to an endpoint answer with one of X's failures",
          body: FAULT_RULE,
          response: responses({ 201: json('The fault, waiting for its calls.', FAULT) }, 400),
        },
      },
      async (request, reply) => reply.code(201).send(added(queue, checkRule(request.body))),
    )
    app.get('/admin/v1/test/faults', { schema: { operationId: 'testListFaults', tags: ['test'], summary: 'Test mode: the faults still waiting for calls', response: responses({ 200: json('Oldest first.', { type: 'object', required: ['data'], properties: { data: { type: 'array', items: FAULT } }, additionalProperties: false }) }) } }, async () => ({ data: queue.list() }))
    app.delete('/admin/v1/test/faults', { schema: { operationId: 'testClearFaults', tags: ['test'], summary: 'Test mode: forget every fault', response: responses(noContent) } }, async (_request, reply) => {
      queue.clear()
      return reply.code(204).send()
    })
  }
}

export function testJournalRoutes(journal: RequestJournal): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    app.get<{ Querystring: JournalFilter }>(
      '/admin/v1/test/requests',
      {
        schema: {
          operationId: 'testListRequests',
          tags: ['test'],
          summary: 'Test mode: the last calls to the API, per app, newest first',
          querystring: FILTER,
          response: responses({ 200: json('Newest first.', { type: 'object', required: ['data'], properties: { data: { type: 'array', items: ENTRY } }, additionalProperties: false }) }, 400),
        },
      },
      async (request) => ({ data: journal.list(request.query) }),
    )
    app.delete('/admin/v1/test/requests', { schema: { operationId: 'testClearRequests', tags: ['test'], summary: 'Test mode: empty the journal', response: responses(noContent) } }, async (_request, reply) => {
      journal.clear()
      return reply.code(204).send()
    })
  }
}
