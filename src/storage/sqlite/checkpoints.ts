import { statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { Worker } from 'node:worker_threads'

/**
 * WAL checkpoints off the request path.
 *
 * A checkpoint copies the pages of the WAL into the database file and syncs both files, which takes
 * milliseconds. SQLite's auto-checkpoint runs
 * it inside the commit that crosses `wal_autocheckpoint` pages, and better-sqlite3 is synchronous,
 * so every request in flight waited for it: the p99 of the write paths (bench shape 4).
 *
 * Here a worker thread with a connection of its own runs `wal_checkpoint(PASSIVE)` (which waits
 * for no reader or writer) every CHECK_EVERY_MS while the WAL is being written. The main
 * connection's auto-checkpoint stays as a bound, at WAL_AUTOCHECKPOINT_PAGES: a WAL can only start
 * over from its beginning once a checkpoint has caught up with its last frame, which under
 * sustained writes happens only when a checkpoint runs in the writing thread; by then the worker
 * has copied and synced all but the last moments, so that one is short. Crash safety is SQLite's
 * own and unchanged: a checkpoint from any connection is safe at any point of a crash.
 *
 * The worker starts only once the WAL has grown past START_AT_BYTES, so the CLI and short-lived
 * databases never pay for a thread. Its source is a string run with `eval`, so it loads the same
 * way from the TypeScript sources and from dist/.
 */

/** The main connection's auto-checkpoint (SQLite's default is 1,000 pages). */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000
const CHECK_EVERY_MS = 250
const START_AT_BYTES = 1024 * 1024

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, { fileMustExist: true })
db.pragma('synchronous = NORMAL')
parentPort.on('message', (message) => {
  if (message === 'checkpoint') {
    try {
      db.pragma('wal_checkpoint(PASSIVE)')
    } catch {
      // Busy with another checkpoint, or the file is gone: the next round or the auto-checkpoint does it.
    }
    parentPort.postMessage('done')
  } else {
    db.close()
    parentPort.close()
  }
})
`

export interface Checkpoints {
  /** Stops the timer and the worker; resolves once the worker has closed its connection and exited. */
  stop(): Promise<void>
}

/** Checkpoints the WAL of the database at `path` in the background until stop(). */
export function checkpointInBackground(path: string): Checkpoints {
  const absolute = resolve(path)
  const walPath = `${absolute}-wal`
  let worker: Worker | undefined
  let isFailed = false
  let isBusy = false
  let lastSeen = ''
  const timer = setInterval(() => {
    if (isFailed || isBusy) return
    let seen: string
    let size: number
    try {
      const stat = statSync(walPath)
      seen = `${stat.size}:${stat.mtimeMs}`
      size = stat.size
    } catch {
      return // no WAL yet
    }
    if (seen === lastSeen) return // nothing written since the last look
    lastSeen = seen
    if (!worker && size < START_AT_BYTES) return
    worker ??= start()
    isBusy = true
    worker.postMessage('checkpoint')
  }, CHECK_EVERY_MS)
  timer.unref()

  function start(): Worker {
    const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { path: absolute, driver: createRequire(import.meta.url).resolve('better-sqlite3') } })
    started.unref()
    started.on('message', () => {
      isBusy = false
    })
    // Without the worker the auto-checkpoint still bounds the WAL, on the request path as before.
    const fail = () => {
      isFailed = true
      clearInterval(timer)
    }
    started.on('error', fail)
    started.on('exit', fail)
    return started
  }

  return {
    stop() {
      clearInterval(timer)
      if (!worker || isFailed) return Promise.resolve()
      // Whoever removes the database next (a test's temp folder) must not race the worker's close.
      const exited = new Promise<void>((resolve) => worker!.once('exit', () => resolve()))
      // Unreferenced while it runs (it must not keep a process alive); referenced while it is awaited.
      worker.ref()
      worker.postMessage('stop')
      return exited
    },
  }
}
