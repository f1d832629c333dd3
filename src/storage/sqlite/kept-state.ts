import { sql, type Kysely } from 'kysely'
import type { Database } from '../sql/schema.ts'

/**
 * The test mode's reset (`serve --test`): a copy of the database's rows, kept in an attached
 * in-memory database, and a way back to it. Not kept and not restored: the migrations' own tables,
 * the admin tokens (the test suite holds one) and the credentials' generation, which only ever
 * moves on (the triggers move it again as the rows come back, so every validity cache empties).
 */
export interface KeptState {
  /** Keeps the rows as they are now, in place of what was kept before. */
  keep(): Promise<void>
  /** Puts back the rows kept last, in one transaction. */
  restore(): Promise<void>
}

const NOT_KEPT = new Set(['admin_tokens', 'credential_generation', 'latchkey_migrations', 'latchkey_migration_lock'])

/** `work` in one transaction on the connection, as the units of work take it (sql/transactions.ts). */
function inTransaction(db: Kysely<Database>, work: (conn: Kysely<Database>) => Promise<void>): Promise<void> {
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn)
    try {
      await work(conn)
      await sql`commit`.execute(conn)
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => {})
      throw error
    }
  })
}

export function keptStateOf(db: Kysely<Database>): KeptState {
  let attached = false
  const tables = async (conn: Kysely<Database>): Promise<string[]> => {
    const { rows } = await sql<{ name: string }>`select name from main.sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(conn)
    return rows.map((row) => row.name).filter((name) => !NOT_KEPT.has(name))
  }
  return {
    async keep() {
      if (!attached) await sql`attach database ':memory:' as kept`.execute(db)
      attached = true
      await inTransaction(db, async (tx) => {
        for (const table of await tables(tx)) {
          await sql`drop table if exists kept.${sql.id(table)}`.execute(tx)
          await sql`create table kept.${sql.id(table)} as select * from main.${sql.id(table)}`.execute(tx)
        }
      })
    },
    async restore() {
      if (!attached) throw new Error('nothing kept to restore')
      await inTransaction(db, async (tx) => {
        // Every row goes before any comes back (a delete cascades to other tables), and they come
        // back in any order: the foreign keys are checked at the commit.
        await sql`pragma defer_foreign_keys = on`.execute(tx)
        const all = await tables(tx)
        for (const table of all) await sql`delete from main.${sql.id(table)}`.execute(tx)
        for (const table of all) await sql`insert into main.${sql.id(table)} select * from kept.${sql.id(table)}`.execute(tx)
      })
    },
  }
}
