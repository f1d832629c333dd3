import type { Database as SqliteDatabase, Statement } from 'better-sqlite3'
import type { Compilable, CompiledQuery, Kysely } from 'kysely'

/**
 * A lookup that Kysely builds and compiles once per database, then runs with new values: building
 * and compiling a query cost more than SQLite takes to answer it, and made much of the garbage of a
 * verified request (bench shapes 1–3). `build` is called once, with a placeholder string for
 * each of its declared parameters after `db` (so none may be optional or a rest parameter), and
 * must use each placeholder as a value (`where(column, '=', id)`), never as a name or a piece of
 * SQL; its compiled parameters are then replaced by the call's arguments. Answers the first row,
 * or undefined. On PostgreSQL the same SQL text also goes to the server as a named prepared
 * statement (`preparedStatementName`, used by postgres/open.ts).
 *
 * On SQLite (a database opened by sqlite/open.ts, which hands over its connection with
 * `lookUpDirectly`) the statement is also prepared once on better-sqlite3 itself and run there,
 * synchronously, whenever no transaction is open on the connection: Kysely's path (its connection
 * mutex, driver and result objects, a chain of promises) cost more than SQLite's own answer. While a
 * unit of work holds the connection (a transaction is open), the lookup goes through Kysely as
 * before, which waits for the unit's commit: a lookup never sees a write that is not committed.
 */
export function preparedLookup<DB, Args extends string[], Row>(
  build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>,
): (db: Kysely<DB>, ...args: Args) => Promise<Row | undefined> {
  const compiledFor = new WeakMap<Kysely<DB>, Compiled<Row>>()
  return async (db, ...args) => {
    let compiled = compiledFor.get(db)
    if (!compiled) compiledFor.set(db, (compiled = compile(db, build)))
    const { query, queryId, sql, parameters, slots, direct } = compiled
    const values = slots.map((slot, i) => (slot === CONSTANT ? parameters[i] : args[slot]))
    if (direct && !direct.connection.inTransaction) {
      const found = direct.statement.get(values) as unknown[] | undefined
      return found && (rowOf(direct.columns, found) as Row)
    }
    const { rows } = await db.executeQuery<Row>({ query, queryId, sql, parameters: values })
    return rows[0]
  }
}

/** A compiled query, for each of its parameters the argument that replaces it (or CONSTANT), and its SQLite statement. */
type Compiled<Row> = CompiledQuery<Row> & { slots: number[]; direct: DirectStatement | undefined }

/**
 * A statement on the better-sqlite3 connection, answering its rows as arrays (`raw`), made into
 * objects here: better-sqlite3 builds an object row property by property through V8's API, which
 * for the 33 columns of the credential lookup costs more than this (bench/components.ts, lookup).
 */
interface DirectStatement {
  connection: SqliteDatabase
  statement: Statement
  columns: string[]
}

function rowOf(columns: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {}
  for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i]
  return row
}

/** The better-sqlite3 connection under each SQLite Kysely instance (sqlite/open.ts). */
const sqliteConnections = new WeakMap<object, SqliteDatabase>()

/** Lets the prepared lookups on `db` run on its better-sqlite3 connection directly (see preparedLookup). */
export function lookUpDirectly<DB>(db: Kysely<DB>, connection: SqliteDatabase): void {
  sqliteConnections.set(db, connection)
}

/** The better-sqlite3 connection under `db`, when it is an embedded database opened by sqlite/open.ts. */
export function directConnection<DB>(db: Kysely<DB>): SqliteDatabase | undefined {
  return sqliteConnections.get(db)
}

const CONSTANT = -1

/** Texts of the prepared lookups and their statement names; a name stands for one text in this process. */
const statementNames = new Map<string, string>()

/** The name under which PostgreSQL keeps `sql` prepared, when it is the text of a prepared lookup. */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql)
}

function compile<DB, Args extends string[], Row>(db: Kysely<DB>, build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>): Compiled<Row> {
  // Compared once with the compiled parameters, to find where each argument goes; a value of the
  // query itself matches none (indexOf answers -1, CONSTANT).
  const placeholders = Array.from({ length: build.length - 1 }, (_, i) => `\u0000latchkey placeholder ${i}\u0000`)
  const compiled = build(db, ...(placeholders as Args)).compile()
  const slots = compiled.parameters.map((value) => placeholders.indexOf(value as string))
  if (placeholders.some((_, i) => !slots.includes(i))) throw new Error(`preparedLookup: an argument is not a value of the query: ${compiled.sql}`)
  if (!statementNames.has(compiled.sql)) statementNames.set(compiled.sql, `latchkey_lookup_${statementNames.size + 1}`)
  const connection = sqliteConnections.get(db)
  return { ...compiled, slots, direct: connection && directStatement(connection, compiled.sql) }
}

function directStatement(connection: SqliteDatabase, sql: string): DirectStatement {
  const statement = connection.prepare(sql).raw(true)
  return { connection, statement, columns: statement.columns().map((column) => column.name) }
}
