import cluster, { type Worker } from 'node:cluster'

/**
 * `latchkey serve --workers N`: N processes on one machine sharing the port through node:cluster.
 * The primary only supervises: it forks one worker, and once that one listens, the rest (so a bad
 * start fails once, not N times); it restarts a worker that dies unexpectedly; on SIGTERM or SIGINT
 * it sends SIGTERM to every worker, which drains as a single process does (a worker still starting
 * simply ends), and exits when they all have. Everything a request needs is in the
 * database and Redis, never in one worker's memory (the serve rules require --redis for N > 1).
 * Give a fixed --port: with port 0 the port is random, and a new one if every worker dies at once.
 */

const LISTENING = 'latchkey:listening'

/** More unexpected exits than this within CRASH_WINDOW_MS means the workers cannot run: give up. */
const MAX_CRASHES = 5
const CRASH_WINDOW_MS = 60_000

export interface PrimaryOptions {
  workers: number
  /** Runs once, when the first worker listens, with the URL it answers on. */
  /** `adminUrl`: the admin listener's address, when the workers open one. */
  onListening(url: string, adminUrl: string | undefined): Promise<void>
  /** One line for the operator (stderr). */
  log(line: string): void
  /** After SIGTERM, how long workers may take to drain before they are killed. */
  drainTimeoutMs?: number
}

export const isClusterWorker = (): boolean => cluster.isWorker

/** Supervises the workers; resolves with the exit code once all of them are gone after a shutdown. */
export function runPrimary(options: PrimaryOptions): Promise<number> {
  return new Promise((resolve) => {
    let phase: 'starting' | 'running' | 'stopping' = 'starting'
    let exitCode = 0
    const live = new Set<Worker>()
    const crashes: number[] = []

    const finishIfDone = () => {
      if (phase === 'stopping' && live.size === 0) {
        process.off('SIGTERM', shutdown)
        process.off('SIGINT', shutdown)
        resolve(exitCode)
      }
    }

    function shutdown(): void {
      if (phase === 'stopping') return
      phase = 'stopping'
      for (const worker of live) worker.process.kill('SIGTERM')
      setTimeout(() => {
        for (const worker of live) worker.process.kill('SIGKILL')
        exitCode = 1
      }, options.drainTimeoutMs ?? 30_000).unref()
      finishIfDone()
    }

    function fork(): void {
      const worker = cluster.fork()
      live.add(worker)
      worker.on('message', (message: unknown) => {
        if (phase !== 'starting' || !isMessage(message, LISTENING)) return
        phase = 'running'
        for (let i = 1; i < options.workers; i++) fork()
        options.onListening(String((message as { url: unknown }).url), adminUrlOf(message)).catch((error: unknown) => {
          options.log(`latchkey: ${(error as Error).message}`)
          exitCode = 1
          shutdown()
        })
      })
      worker.on('exit', (code, signal) => {
        live.delete(worker)
        if (phase === 'starting') {
          // The first worker could not start (it printed why): stop, as a single process would.
          exitCode = code || 1
          phase = 'stopping'
        } else if (phase === 'running') {
          restart(worker, code, signal)
        }
        finishIfDone()
      })
    }

    function restart(worker: Worker, code: number | null, signal: string | null): void {
      const now = Date.now()
      crashes.push(now)
      while (crashes.length > 0 && crashes[0]! < now - CRASH_WINDOW_MS) crashes.shift()
      if (crashes.length > MAX_CRASHES) {
        options.log(`latchkey: workers exited ${crashes.length} times within a minute; stopping`)
        exitCode = 1
        shutdown()
        return
      }
      options.log(`latchkey: worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`)
      fork()
    }

    process.on('SIGTERM', shutdown)
    process.on('SIGINT', shutdown)
    fork()
  })
}

/** In a worker: tells the primary that this worker listens on `url` (and on `adminUrl` for the admin API, when open). */
export function reportListening(url: string, adminUrl?: string): void {
  process.send?.({ type: LISTENING, url, ...(adminUrl === undefined ? {} : { adminUrl }) })
}

function adminUrlOf(message: unknown): string | undefined {
  const adminUrl = (message as { adminUrl?: unknown }).adminUrl
  return typeof adminUrl === 'string' ? adminUrl : undefined
}

function isMessage(message: unknown, type: string): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type
}
