import Sqlite from 'better-sqlite3'
import { isPostgresUrl } from '../../src/storage/urls.ts'
import { runSql } from './backends.ts'

/**
 * What a test's database holds, read straight from it (the SQLite file, or the PostgreSQL schema
 * of a `dbPath` from openTestDomain): for proving that a refused request wrote nothing, and that no
 * control character ever reached a row (issue 29, rule 3).
 */

/** Every table of the database, migrations' bookkeeping included, in name order. */
export async function tableNames(dbPath: string): Promise<string[]> {
  if (isPostgresUrl(dbPath)) {
    const rows = await runSql<{ name: string }>(
      dbPath,
      "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1",
    )
    return rows.map((r) => r.name)
  }
  return withSqlite(dbPath, (db) =>
    (db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by 1").all() as Array<{ name: string }>).map((r) => r.name),
  )
}

/**
 * Tables a serving process writes by itself, on PostgreSQL: what they are read as, without that write.
 * Every 5 s an instance says it serves (beat_at, postgres/generation-home.ts): no request wrote it.
 */
const OWN_WRITES: Record<string, string> = { redis_generation: '(select id, key_prefix, marker from redis_generation)' }

/** The rows of every table as text, one string per row, by table: enough to compare two moments or to search. */
export async function tableContents(dbPath: string, tables?: readonly string[]): Promise<Record<string, string[]>> {
  const names = tables ?? (await tableNames(dbPath))
  const contents: Record<string, string[]> = {}
  if (isPostgresUrl(dbPath)) {
    if (names.length === 0) return contents
    // One statement for all tables: each row as its text form, sorted so that the order is stable.
    const query = names
      .map((name) => `select ${quoteLiteral(name)} as t, coalesce((select array_agg(r::text order by r::text) from ${OWN_WRITES[name] ?? quoteIdent(name)} r), '{}') as rows`)
      .join(' union all ')
    for (const row of await runSql<{ t: string; rows: string[] }>(dbPath, query)) contents[row.t] = row.rows
    return contents
  }
  return withSqlite(dbPath, (db) => {
    for (const name of names) {
      const rows = db.prepare(`select * from ${quoteIdent(name)}`).all() as Array<Record<string, unknown>>
      contents[name] = rows.map((r) => JSON.stringify(r, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('base64') : value))).sort()
    }
    return contents
  })
}

/** The number of rows of every table. */
export async function tableCounts(dbPath: string): Promise<Record<string, number>> {
  const contents = await tableContents(dbPath)
  return Object.fromEntries(Object.entries(contents).map(([name, rows]) => [name, rows.length]))
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\\+u00(0[0-8bcef]|1[0-9a-f]|7f|[89][0-9a-f])/i

/**
 * Where a control character (other than tab, CR and LF) is stored, raw or as a JSON escape
 * (`\u0007`): `table: row` for each row that holds one. Empty when none does.
 */
export async function storedControlCharacters(dbPath: string): Promise<string[]> {
  return controlCharactersIn(await tableContents(dbPath))
}

/** The same, in contents already read (tableContents): one read serves this and a comparison. */
export function controlCharactersIn(contents: Record<string, string[]>): string[] {
  const found: string[] = []
  for (const [table, rows] of Object.entries(contents)) {
    // JSON.stringify writes a control character as \u00XX, which the pattern finds too.
    for (const row of rows) if (CONTROL.test(row)) found.push(`${table}: ${row.slice(0, 300)}`)
  }
  return found
}

/** What `storedControlCharacters` finds now that it did not find in `before`: what the request in between stored. */
export async function newlyStoredControlCharacters(dbPath: string, before: readonly string[]): Promise<string[]> {
  return (await storedControlCharacters(dbPath)).filter((row) => !before.includes(row))
}

function withSqlite<T>(dbPath: string, work: (db: Sqlite.Database) => T): T {
  const db = new Sqlite(dbPath, { readonly: true })
  try {
    return work(db)
  } finally {
    db.close()
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`
const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`
