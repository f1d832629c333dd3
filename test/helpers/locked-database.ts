import Sqlite from 'better-sqlite3'

/**
 * Runs `work` while a second connection holds an exclusive lock on the SQLite file, as a stuck
 * writer would: reads still succeed (WAL), every write waits out busy_timeout and fails, which the
 * service answers as an outage (503).
 */
export async function whileDatabaseLocked<T>(dbPath: string, work: () => Promise<T>): Promise<T> {
  const lock = new Sqlite(dbPath)
  lock.exec('begin exclusive')
  try {
    return await work()
  } finally {
    lock.exec('rollback')
    lock.close()
  }
}
