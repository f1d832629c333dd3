import { Kysely, type PostgresPool, type PostgresPoolClient } from 'kysely'
import { Pool, types, type PoolClient } from 'pg'
import type { Database } from '../sql/schema.ts'
import { preparedStatementName } from '../sql/prepared.ts'
import { CurrentSchemaPostgresDialect } from './current-schema-introspector.ts'

const INT8_OID = 20

/**
 * Our bigint columns hold epoch milliseconds, far below 2^53, so they read back as JS numbers like
 * on SQLite. Set on this pool's clients only: other pg users in the process keep pg's default.
 */
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (value: string) => Number(value) : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
}

/** Timeouts that turn an overloaded or unreachable server into a prompt error (503) instead of a hung request. */
export const POSTGRES_TIMEOUTS = {
  /** Opening a connection, or waiting for a free one from a full pool. */
  connectionTimeoutMillis: 5_000,
  /** Server side: no single statement of ours should run this long. */
  statement_timeout: 10_000,
  /** Client side: a server that stops answering mid-query (network loss) fails the query. */
  query_timeout: 15_000,
  /** A transaction left open by a crashed request releases its locks. */
  idle_in_transaction_session_timeout: 30_000,
} as const

/**
 * A Kysely instance over a pg Pool for a postgres:// URL. The URL may carry libpq-style options,
 * e.g. `?options=-c%20search_path%3Dmyschema` to put the tables in a schema of their own.
 */
export function openPostgres(url: string, options: { max?: number } = {}): Kysely<Database> {
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: 'latchkey',
    types: typeParsers,
    ...POSTGRES_TIMEOUTS,
  })
  // An idle client whose server went away emits 'error' on the pool; without a listener that would
  // crash the process. The pool drops that client, and the next query opens a new connection.
  pool.on('error', () => {})
  return new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool: withNamedStatements(pool) }) })
}

/**
 * The pool as Kysely uses it, except that the hot lookups (sql/prepared.ts) go out as named prepared
 * statements: each connection has PostgreSQL parse and plan one once, then only binds new values.
 * Every other statement goes out as before (unnamed): migrations and one-off queries gain nothing.
 */
function withNamedStatements(pool: Pool): PostgresPool {
  const wrapped = new WeakMap<PoolClient, PostgresPoolClient>()
  // Typed for query(sql, parameters) alone: Kysely passes a cursor only when its dialect has one
  // (ours has not), and one would still reach pg unchanged (it is no statement's text).
  const wrap = (client: PoolClient) =>
    ({
      query(sql: string, parameters: ReadonlyArray<unknown>) {
        const name = preparedStatementName(sql)
        const values = parameters as unknown[]
        return name ? client.query({ name, text: sql, values }) : client.query(sql, values)
      },
      release: (destroy?: boolean) => client.release(destroy),
    }) as unknown as PostgresPoolClient
  return {
    async connect() {
      const client = await pool.connect()
      let kyselyClient = wrapped.get(client)
      if (!kyselyClient) {
        // A connection lost while lent out (a unit of work between two statements) emits 'error' on
        // its client, which the pool listens for only while the client is idle: without a listener
        // that would crash the process. The unit's next statement fails instead (503), and the pool
        // drops the client when it comes back.
        client.on('error', () => {})
        wrapped.set(client, (kyselyClient = wrap(client)))
      }
      return kyselyClient
    },
    end: () => pool.end(),
  }
}
