import type { FastifyInstance } from 'fastify'
import { AUDIT_EVENTS, type AuditEventName } from '../../storage/records.ts'
import { decodeCursor, page } from '../pagination.ts'
import { PROBLEM_TYPES, ProblemError } from '../problem.ts'
import { AUDIT_EVENT, ID, json, listOf, listQuery, responses } from '../schemas.ts'

interface AuditQuery {
  app_id?: string
  user_id?: string
  event?: AuditEventName
  since?: string
  until?: string
  cursor?: string
  limit: number
}

/** `<at_ms>.<id>`: the sort key of an audit row (newest first). */
const AUDIT_KEY = /^\d{1,16}\.\d{1,16}$/

/**
 * An RFC 3339 leap second (`23:59:60`), which the schema's date-time accepts and Date.parse does
 * not; its offset with or without the colon, as the schema takes both.
 */
const LEAP_SECOND = /:60(?=(\.\d+)?(Z|[+-]\d{2}:?\d{2})$)/i

/**
 * A `since` or `until` as milliseconds: a leap second counts as the second after :59; a time Date
 * cannot hold is the field's mistake (400), never a NaN handed to the store (a 500 on PostgreSQL).
 */
function timeMs(value: string | undefined, field: 'since' | 'until'): number | undefined {
  if (value === undefined) return undefined
  const ms = LEAP_SECOND.test(value) ? Date.parse(value.replace(LEAP_SECOND, ':59')) + 1000 : Date.parse(value)
  if (!Number.isFinite(ms)) {
    throw new ProblemError(400, PROBLEM_TYPES.validation, 'The request has invalid fields.', [{ in: 'query', field, detail: 'is not a time this API can read' }])
  }
  return ms
}

export async function auditRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: AuditQuery }>(
    '/admin/v1/audit',
    {
      schema: {
        operationId: 'listAuditEvents',
        tags: ['audit'],
        summary: 'The audit trail, newest first: the records `latchkey audit` shows',
        querystring: listQuery({
          app_id: ID,
          user_id: ID,
          event: { type: 'string', enum: [...AUDIT_EVENTS] },
          since: { type: 'string', format: 'date-time', description: 'Only events at or after this time.' },
          until: { type: 'string', format: 'date-time', description: 'Only events before this time.' },
        }),
        response: responses({ 200: json('A page of audit events.', listOf(AUDIT_EVENT)) }, 400),
      },
    },
    async (request) => {
      const q = request.query
      const sinceMs = timeMs(q.since, 'since')
      const untilMs = timeMs(q.until, 'until')
      const key = decodeCursor(q.cursor, AUDIT_KEY)
      const [atMs, id] = key === undefined ? [] : key.split('.').map(Number)
      const rows = await request.adminDomain.stores.listings.auditPage({
        limit: q.limit + 1,
        appId: q.app_id,
        userId: q.user_id,
        event: q.event,
        sinceMs,
        untilMs,
        before: atMs === undefined || id === undefined ? undefined : { atMs, id },
      })
      return page(
        rows,
        q.limit,
        (e) => `${e.atMs}.${e.id}`,
        (e) => ({ at: new Date(e.atMs).toISOString(), event: e.event, app_id: e.appId, user_id: e.userId, address: e.address, detail: e.detail }),
      )
    },
  )
}
