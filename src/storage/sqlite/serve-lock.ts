import { mkdirSync, rmSync, rmdirSync } from 'node:fs'
import { dirname, relative } from 'node:path'
import Sqlite from 'better-sqlite3'
import { sqlitePath } from './open.ts'

/** What `serve` holds while it runs; closing it lets the next server start. */
export interface ServeLock {
  release(): void
  /** A start refused after the lock was taken: release it and remove what taking it made (the lock file, folders still empty). */
  abandon(): void
}

/**
 * Makes sure one server at a time runs on a SQLite file whose nonces and limits live in memory:
 * two such servers would each keep their own nonce store and accept each other's replays.
 *
 * The lock is an exclusive transaction held open on a small file beside the database
 * (`<database>.serve-lock`), never on the database itself, so the CLI keeps working beside a
 * running server. The operating system drops the file lock when the process dies, even by SIGKILL:
 * a crashed server never blocks the next start. Returns undefined when another server holds it.
 */
export function takeServeLock(databaseUrl: string): ServeLock | undefined {
  const path = sqlitePath(databaseUrl)
  if (path === ':memory:' || path === '') return { release() {}, abandon() {} }
  const firstMade = mkdirSync(dirname(path), { recursive: true })
  const lockFile = new Sqlite(`${path}.serve-lock`, { timeout: 0 })
  try {
    lockFile.exec('begin exclusive')
  } catch (error) {
    lockFile.close()
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return undefined
    throw error
  }
  return {
    abandon() {
      this.release()
      rmSync(`${path}.serve-lock`, { force: true })
      if (firstMade !== undefined) removeEmptyFolders(dirname(path), firstMade)
    },
    release() {
      if (lockFile.inTransaction) lockFile.exec('rollback')
      lockFile.close()
    },
  }
}

/** Removes `folder` and its parents up to `top`, each only while it is empty. */
function removeEmptyFolders(folder: string, top: string): void {
  for (let current = folder; !relative(top, current).startsWith('..'); current = dirname(current)) {
    try {
      rmdirSync(current)
    } catch {
      return
    }
    if (current === top) return
  }
}
