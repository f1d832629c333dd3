// Preloaded after Stryker's tap hook in every mutation test process (stryker.config.mjs). The hook
// writes what the process covered to stryker-output-<pid>.json when it exits; a worker thread (the
// SQLite checkpoint worker) shares the pid and runs the preloads too, and, exiting after the main
// thread, overwrote the main thread's file with an empty one: every test that started a server
// reported no coverage. A worker thread covers nothing of ours, so it writes nothing.
import { isMainThread } from 'node:worker_threads'

if (!isMainThread) process.removeAllListeners('exit')
