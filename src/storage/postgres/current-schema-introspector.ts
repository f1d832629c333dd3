import { PostgresDialect, sql, type DatabaseIntrospector, type DatabaseMetadata, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely'

/**
 * What Kysely's Migrator sees of a PostgreSQL database: its schemas, and the tables of the current
 * schema only (the one the migrations write to, storage/sql/migrations.ts).
 *
 * Kysely's own introspector lists every column of every table of every schema, and resolves each
 * schema by name while doing so (`has_schema_privilege`, `pg_get_serial_sequence`). A schema that
 * another session drops between the statement's catalog snapshot and that call fails the whole
 * migration with 3F000 "schema … does not exist": an instance starting while another tenant's schema
 * is dropped, or one test run while another run tears down its schemas. The Migrator only asks
 * whether its own two tables exist, so the tables are listed by name, without their columns.
 */
export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>

  constructor(db: Kysely<unknown>) {
    this.#db = db
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`select nspname as name from pg_catalog.pg_namespace`.execute(this.#db)
    return rows.map(({ name }) => ({ name }))
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; isView: boolean }>`
      select c.relname as name, ns.nspname as schema, c.relkind = 'v' as "isView"
      from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')`.execute(this.#db)
    return rows.map((row) => ({ ...row, columns: [] }))
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() }
  }
}

/** Kysely's PostgreSQL dialect with the introspector above. */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db)
  }
}
