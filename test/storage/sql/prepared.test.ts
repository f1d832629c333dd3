import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import { preparedLookup, preparedStatementName } from '../../../src/storage/sql/prepared.ts'

interface Db {
  pairs: { a: string; b: string; kind: string }
}

async function openDb(rows: Array<Db['pairs']>): Promise<Kysely<Db>> {
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: new Sqlite(':memory:') }) })
  await sql`create table pairs (a text, b text, kind text)`.execute(db)
  if (rows.length > 0) await db.insertInto('pairs').values(rows).execute()
  return db
}

// The second argument is used before the first, and the query holds a value of its own ('x').
const byBThenA = preparedLookup((db: Kysely<Db>, a: string, b: string) =>
  db.selectFrom('pairs').selectAll().where('b', '=', b).where('kind', '=', 'x').where('a', '=', a),
)

describe('preparedLookup', () => {
  test('runs the query compiled once with each call’s values, each in its place, the query’s own values kept', async () => {
    const db = await openDb([
      { a: '1', b: '2', kind: 'x' },
      { a: '2', b: '1', kind: 'x' },
      { a: '3', b: '4', kind: 'y' },
    ])
    try {
      assert.deepEqual(await byBThenA(db, '1', '2'), { a: '1', b: '2', kind: 'x' })
      assert.deepEqual(await byBThenA(db, '2', '1'), { a: '2', b: '1', kind: 'x' })
      assert.equal(await byBThenA(db, '3', '4'), undefined, 'kind y is not x')
      assert.equal(await byBThenA(db, '9', '9'), undefined)
    } finally {
      await db.destroy()
    }
  })

  test('each database gets its own compiled query', async () => {
    const first = await openDb([{ a: '1', b: '1', kind: 'x' }])
    const second = await openDb([{ a: '1', b: '1', kind: 'y' }, { a: '2', b: '2', kind: 'x' }])
    try {
      assert.deepEqual(await byBThenA(first, '1', '1'), { a: '1', b: '1', kind: 'x' })
      assert.equal(await byBThenA(second, '1', '1'), undefined)
      assert.deepEqual(await byBThenA(second, '2', '2'), { a: '2', b: '2', kind: 'x' })
    } finally {
      await Promise.all([first.destroy(), second.destroy()])
    }
  })

  test('names the SQL text for PostgreSQL, and nothing else', async () => {
    const db = await openDb([])
    try {
      await byBThenA(db, '1', '1')
      const text = db.selectFrom('pairs').selectAll().where('b', '=', 'p').where('kind', '=', 'x').where('a', '=', 'q').compile().sql
      assert.match(preparedStatementName(text) ?? '', /^latchkey_lookup_\d+$/)
      assert.equal(preparedStatementName('select 1'), undefined)
    } finally {
      await db.destroy()
    }
  })

  test('a query that does not use an argument as a value is refused when first run', async () => {
    const unused = preparedLookup((db: Kysely<Db>, _a: string) => db.selectFrom('pairs').selectAll().where('kind', '=', 'x'))
    const db = await openDb([])
    try {
      await assert.rejects(unused(db, 'a'), /not a value of the query/)
    } finally {
      await db.destroy()
    }
  })
})
