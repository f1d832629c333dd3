import { sql, type Kysely, type Selectable } from 'kysely'
import type {
  CredentialKind,
  DueDelivery,
  RevocationOutboxStore,
  SequencedRevocationEvent,
  WebhookStatus,
  WebhookStore,
} from '../revocation-types.ts'
import type { Sealer } from '../sealing/sealer.ts'
import type { Database, RevocationEventsTable, WebhookEndpointsTable } from './schema.ts'
import { atomicallyOn } from './transactions.ts'

const LEASE = 'delivery'

const nullableMs = (value: number | string | null) => (value === null ? null : Number(value))

type EventRow = Omit<Selectable<RevocationEventsTable>, 'fanned'>
const EVENT_COLUMNS = ['id', 'event_id', 'type', 'at_ms', 'app_id', 'user_id', 'credential_kind', 'credential_sha256'] as const

function toEvent(row: EventRow): SequencedRevocationEvent {
  return {
    seq: Number(row.id),
    id: row.event_id,
    type: row.type,
    atMs: Number(row.at_ms),
    appId: row.app_id,
    userId: row.user_id,
    credentialKind: row.credential_kind as CredentialKind,
    credentialSha256: row.credential_sha256,
  }
}

function toEndpoint(row: Selectable<WebhookEndpointsTable>) {
  return {
    id: row.id,
    url: row.url,
    appId: row.app_id,
    createdAtMs: Number(row.created_at_ms),
    verifiedAtMs: nullableMs(row.verified_at_ms),
    lastSuccessAtMs: nullableMs(row.last_success_at_ms),
    lastError: row.last_error,
    lastErrorAtMs: nullableMs(row.last_error_at_ms),
  }
}

/** A pending delivery of the event `seq` to an endpoint, due at `dueAtMs`. */
const deliveryRow = (endpointId: string, seq: number, dueAtMs: number) => ({
  id: `${endpointId}/${seq}`,
  endpoint_id: endpointId,
  event_seq: seq,
  state: 'pending',
  attempts: 0,
  next_attempt_at_ms: dueAtMs,
})

/** The outbox, written inside the unit of work of the change that ended a credential. */
export function createRevocationOutboxStore(db: Kysely<Database>): RevocationOutboxStore {
  return {
    async append(event) {
      await db
        .insertInto('revocation_events')
        .values({
          event_id: event.id,
          type: event.type,
          at_ms: event.atMs,
          app_id: event.appId,
          user_id: event.userId,
          credential_kind: event.credentialKind,
          credential_sha256: event.credentialSha256,
        })
        .execute()
    },
  }
}

/** Webhook endpoints, their deliveries and the delivery lease, on any Kysely dialect. */
export function createWebhookStore(db: Kysely<Database>, sealer: Sealer, { isInUnit = false }: { isInUnit?: boolean } = {}): WebhookStore {
  const atomically = atomicallyOn(db, isInUnit)
  return {
    async add(endpoint) {
      await db
        .insertInto('webhook_endpoints')
        .values({
          id: endpoint.id,
          url: endpoint.url,
          app_id: endpoint.appId,
          secret: sealer.seal(endpoint.secret),
          created_at_ms: endpoint.createdAtMs,
          verified_at_ms: null,
          last_success_at_ms: null,
          last_error: null,
          last_error_at_ms: null,
        })
        .execute()
    },
    async find(id) {
      const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst()
      return row && { ...toEndpoint(row), secret: sealer.open(row.secret) }
    },
    async markVerified(id, nowMs) {
      const result = await db.updateTable('webhook_endpoints').set({ verified_at_ms: nowMs }).where('id', '=', id).executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },
    async list() {
      const endpoints = await db.selectFrom('webhook_endpoints').selectAll().orderBy('created_at_ms').orderBy('id').execute()
      const counts = await db
        .selectFrom('webhook_deliveries')
        .select(['endpoint_id', 'state', (eb) => eb.fn.countAll<number | string>().as('n')])
        .groupBy(['endpoint_id', 'state'])
        .execute()
      // Events not yet handed out wait for their endpoints too (the delivery loop has not run since).
      const unfanned = await db
        .selectFrom('revocation_events')
        .select(['app_id', (eb) => eb.fn.countAll<number | string>().as('n')])
        .where('fanned', '=', 0)
        .groupBy('app_id')
        .execute()
      const waiting = (appId: string | null) => unfanned.filter((u) => appId === null || u.app_id === appId).reduce((sum, u) => sum + Number(u.n), 0)
      const countOf = (id: string, state: string) => Number(counts.find((c) => c.endpoint_id === id && c.state === state)?.n ?? 0)
      return endpoints.map((row): WebhookStatus => ({ ...toEndpoint(row), pending: countOf(row.id, 'pending') + waiting(row.app_id), failed: countOf(row.id, 'failed') }))
    },
    async remove(id) {
      return atomically(async (tx) => {
        await tx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute()
        const result = await tx.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst()
        return Number(result.numDeletedRows) > 0
      })
    },
    async claimLease(holder, nowMs, ttlMs) {
      // One statement: the first claim makes the row, a later one takes it only from its holder or when expired.
      const result = await db
        .insertInto('revocation_lease')
        .values({ name: LEASE, holder, expires_at_ms: nowMs + ttlMs })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet({ holder, expires_at_ms: nowMs + ttlMs })
            .where((eb) => eb.or([eb('revocation_lease.holder', '=', holder), eb('revocation_lease.expires_at_ms', '<', nowMs)])),
        )
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
    },
    async releaseLease(holder) {
      await db.updateTable('revocation_lease').set({ holder: '', expires_at_ms: 0 }).where('name', '=', LEASE).where('holder', '=', holder).execute()
    },
    async fanOut(limit) {
      return db.transaction().execute(async (tx) => {
        const rows = await tx
          .selectFrom('revocation_events')
          .select(EVENT_COLUMNS)
          .where('fanned', '=', 0)
          .orderBy('id')
          .limit(limit)
          .execute()
        if (rows.length === 0) return []
        const events = rows.map(toEvent)
        const endpoints = await tx.selectFrom('webhook_endpoints').select(['id', 'app_id']).execute()
        const deliveries = events.flatMap((event) =>
          endpoints
            .filter((endpoint) => endpoint.app_id === null || endpoint.app_id === event.appId)
            .map((endpoint) => deliveryRow(endpoint.id, event.seq, 0)),
        )
        for (let i = 0; i < deliveries.length; i += 200) {
          await tx
            .insertInto('webhook_deliveries')
            .values(deliveries.slice(i, i + 200))
            .onConflict((oc) => oc.doNothing())
            .execute()
        }
        await tx
          .updateTable('revocation_events')
          .set({ fanned: 1 })
          .where('id', 'in', events.map((e) => e.seq))
          .execute()
        return events
      })
    },
    async due(nowMs) {
      // Each endpoint's oldest pending delivery (the primary key's order), if its attempt is due.
      const { rows } = await sql<EventRow & { endpoint_id: string; url: string; secret: string; attempts: number }>`select d.endpoint_id, w.url, w.secret, d.attempts, e.id, e.event_id, e.type, e.at_ms, e.app_id, e.user_id, e.credential_kind, e.credential_sha256
        from webhook_deliveries d
        join webhook_endpoints w on w.id = d.endpoint_id
        join revocation_events e on e.id = d.event_seq
        where d.state = 'pending' and d.next_attempt_at_ms <= ${nowMs} and w.verified_at_ms is not null
          and d.event_seq = (select min(d2.event_seq) from webhook_deliveries d2 where d2.endpoint_id = d.endpoint_id and d2.state = 'pending')`.execute(db)
      return rows.map(
        (row): DueDelivery => ({
          endpoint: { id: row.endpoint_id, url: row.url, secret: sealer.open(row.secret) },
          event: toEvent(row),
          attempts: Number(row.attempts),
        }),
      )
    },
    async delivered(endpointId, seq, nowMs) {
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', endpointId).where('event_seq', '=', seq).execute()
        await tx.updateTable('webhook_endpoints').set({ last_success_at_ms: nowMs }).where('id', '=', endpointId).execute()
      })
    },
    async attemptFailed(endpointId, seq, attempt) {
      await db.transaction().execute(async (tx) => {
        await tx
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            attempts: eb('attempts', '+', 1),
            next_attempt_at_ms: attempt.nextAttemptAtMs,
            state: attempt.giveUp ? 'failed' : 'pending',
          }))
          .where('endpoint_id', '=', endpointId)
          .where('event_seq', '=', seq)
          .execute()
        await tx.updateTable('webhook_endpoints').set({ last_error: attempt.error, last_error_at_ms: attempt.nowMs }).where('id', '=', endpointId).execute()
      })
    },
    async replay(endpointId, what, nowMs) {
      if ('failed' in what) {
        const result = await db
          .updateTable('webhook_deliveries')
          .set({ state: 'pending', attempts: 0, next_attempt_at_ms: nowMs })
          .where('endpoint_id', '=', endpointId)
          .where('state', '=', 'failed')
          .executeTakeFirst()
        return Number(result.numUpdatedRows)
      }
      const endpoint = await db.selectFrom('webhook_endpoints').select(['id', 'app_id']).where('id', '=', endpointId).executeTakeFirst()
      if (!endpoint) return 0
      let events = db.selectFrom('revocation_events').select('id').where('at_ms', '>=', what.sinceMs).where('fanned', '=', 1)
      if (endpoint.app_id !== null) events = events.where('app_id', '=', endpoint.app_id)
      const seqs = (await events.orderBy('id').execute()).map((r) => Number(r.id))
      for (let i = 0; i < seqs.length; i += 200) {
        await db
          .insertInto('webhook_deliveries')
          .values(seqs.slice(i, i + 200).map((seq) => deliveryRow(endpointId, seq, nowMs)))
          .onConflict((oc) => oc.columns(['endpoint_id', 'event_seq']).doUpdateSet({ state: 'pending', attempts: 0, next_attempt_at_ms: nowMs }))
          .execute()
      }
      return seqs.length
    },
    async prune(beforeMs) {
      const result = await db
        .deleteFrom('revocation_events')
        .where('at_ms', '<', beforeMs)
        .where('fanned', '=', 1)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhook_deliveries').select('event_seq').whereRef('webhook_deliveries.event_seq', '=', 'revocation_events.id'))))
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}
