import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Kysely } from 'kysely'
import { openDatabase } from '../../../src/storage/open-stores.ts'
import { TEST_DATABASE_URL, createTestSchema } from '../../helpers/backends.ts'

/**
 * An empty database of this pass, not migrated: a PostgreSQL schema of its own when the pass is on
 * PostgreSQL, else a SQLite file in a folder of its own; `remove` drops either.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests write tables as they were before a migration, which the schema type no longer describes
export async function freshDatabase(): Promise<{ db: Kysely<any>; remove(): Promise<void> }> {
  if (TEST_DATABASE_URL) {
    const schema = await createTestSchema()
    const db = await openDatabase(schema.url)
    return { db, remove: async () => (await db.destroy(), await schema.drop()) }
  }
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-migrate-'))
  const db = await openDatabase(join(dir, 'latchkey.sqlite'))
  return { db, remove: async () => (await db.destroy(), rmSync(dir, { recursive: true, force: true })) }
}

