import type { FastifyInstance } from 'fastify'
import { AUDIT_EVENTS, type AuditEventName } from '../../storage/records.ts'
import { decodeCursor, page } from '../pagination.ts'
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
      const key = decodeCursor(q.cursor, AUDIT_KEY)
      const [atMs, id] = key === undefined ? [] : key.split('.').map(Number)
      const rows = await request.adminDomain.stores.admin.auditPage({
        limit: q.limit + 1,
        appId: q.app_id,
        userId: q.user_id,
        event: q.event,
        sinceMs: q.since === undefined ? undefined : Date.parse(q.since),
        untilMs: q.until === undefined ? undefined : Date.parse(q.until),
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
